import { readFileSync } from 'node:fs';
import path from 'node:path';
import RequestValidatorModule from 'openapi-request-validator';
import ResponseValidatorModule from 'openapi-response-validator';
import { parse } from 'yaml';
import type { DevPsp } from '../../src/devpsp/server.js';
import type { Exchange } from '../../src/devpsp/state.js';

type Json = Record<string, unknown>;

// CommonJS modules whose class is their `default` export: depending on the loader's interop it arrives as the
// default import itself or one level down.
const OpenAPIRequestValidator = (RequestValidatorModule.default ??
  RequestValidatorModule) as unknown as typeof RequestValidatorModule.default;
const OpenAPIResponseValidator = (ResponseValidatorModule.default ??
  ResponseValidatorModule) as unknown as typeof ResponseValidatorModule.default;

// the Central Bank's API Pix 2.9.0 (bacen/pix-api, Apache License 2.0), an unchanged copy: test/fixtures/README.md
const doc = errata(
  parse(
    readFileSync(path.resolve(import.meta.dirname, '../fixtures/bcb-pix-api-2.9.0.yaml'), 'utf8'),
  ) as Json,
);
const components = doc.components as Json;

/**
 * Release 2.9.0 has defects that no object can satisfy; they are corrected here, and only these:
 * - CPF patterns are written "/^\d{11}$/" (slashes of a regex literal inside the string): no CPF matches.
 * - RecBase requires "retentativa", a property no schema defines (it is RecConfiguracao's politicaRetentativa,
 *   already required there).
 * - DadosPagadorRec requires "ispbParticipante" and one of CPF / CNPJ at the recurrence's top level, while
 *   they are properties of its `pagador` (as every example writes them): they are required inside `pagador`.
 * - PixAutomatico.valor is a string that must also match one of five object schemas (the Pix's
 *   componentesValor, misplaced): the anyOf is dropped, the string's own pattern stays.
 * - RecNotification requires `atualizacao"` (a stray quote in the yaml) instead of `atualizacao`.
 * - PixConsultados (GET /pix) requires `cobs`, a property of CobsConsultadas: its list is `pix`.
 * - DadosRecebedor (a cobv's `recebedor`) requires logradouro, cidade, uf and cep at the charge's top level,
 *   while they are properties of its `recebedor`: they are required inside `recebedor`.
 */
function errata(d: Json): Json {
  const fixPatterns = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const o = node as Json;
    if (typeof o.pattern === 'string' && /^\/\^.*\$\/$/.test(o.pattern)) o.pattern = o.pattern.slice(1, -1);
    for (const v of Object.values(o)) fixPatterns(v);
  };
  fixPatterns(d);
  const s = (d.components as Json).schemas as Record<string, Json>;
  s.RecBase!.required = (s.RecBase!.required as string[]).filter((r) => r !== 'retentativa');
  const payer = s.DadosPagadorRec!;
  const payerProps = payer.properties as Record<string, Json>;
  payerProps.pagador = { ...payerProps.pagador, required: ['ispbParticipante'], oneOf: payer.oneOf };
  delete payer.required;
  delete payer.oneOf;
  delete ((s.PixAutomatico!.properties as Record<string, Json>).valor as Json).anyOf;
  s.RecNotification!.required = ['idRec', 'status', 'atualizacao'];
  s.PixConsultados!.required = ['parametros', 'pix'];
  const receiver = s.DadosRecebedor!;
  const receiverProps = receiver.properties as Record<string, Json>;
  receiverProps.recebedor = { ...receiverProps.recebedor, required: receiver.required };
  delete receiver.required;
  return d;
}

/** Follows a local "#/components/…" $ref (request bodies, responses, parameters); schemas stay referenced. */
function resolve<T>(node: T): T {
  const ref = (node as { $ref?: string } | undefined)?.$ref;
  if (!ref || ref.startsWith('#/components/schemas/')) return node;
  let target: unknown = doc;
  for (const part of ref.slice(2).split('/')) target = (target as Json)[part];
  return resolve(target as T);
}

/**
 * Problems of one exchange with the local PSP against the Central Bank's yaml: the request the adapter sent
 * (path parameters and body) and the answer it received. Empty when both follow the standard.
 */
export function pixApiProblems(x: Exchange): string[] {
  const op = operationValidators(x.method, x.path);
  if (!op) return [`${x.method} ${x.path} is not in the standard`];
  const problems: string[] = [];
  const reqErrors = op.request.validateRequest({
    headers: { 'content-type': 'application/json' },
    params: x.params,
    body: x.requestBody ?? undefined,
    query: typedQuery(x.query ?? {}, op.parameters),
  });
  if (reqErrors) problems.push(`request: ${JSON.stringify(reqErrors.errors)}`);
  const resErrors = op.response.validateResponse(x.status, x.responseBody ?? undefined);
  if (resErrors) problems.push(`response ${x.status}: ${JSON.stringify(resErrors.errors)}`);
  return problems.map((p) => `${x.method} ${x.path}: ${p}`);
}

interface OperationValidators {
  parameters: Json[];
  request: InstanceType<typeof OpenAPIRequestValidator>;
  response: InstanceType<typeof OpenAPIResponseValidator>;
}

/**
 * The validators of one operation, made once: each compiles the yaml's schemas, which took long enough per
 * exchange that checking a file's few hundred exchanges outlasted a hook's timeout on a loaded machine.
 */
const validators = new Map<string, OperationValidators | null>();
function operationValidators(method: string, urlPath: string): OperationValidators | null {
  const key = `${method} ${urlPath}`;
  if (validators.has(key)) return validators.get(key)!;
  const pathItem = (doc.paths as Json)[urlPath] as Json | undefined;
  const operation = pathItem?.[method.toLowerCase()] as Json | undefined;
  let made: OperationValidators | null = null;
  if (operation) {
    const parameters = [
      ...((pathItem!.parameters as unknown[]) ?? []),
      ...((operation.parameters as unknown[]) ?? []),
    ].map(resolve) as Json[];
    const requestBody = operation.requestBody ? resolve(operation.requestBody) : undefined;
    const responses = Object.fromEntries(
      Object.entries(operation.responses as Json).map(([status, r]) => [status, resolve(r)]),
    );
    made = {
      parameters,
      request: new OpenAPIRequestValidator({
        parameters: parameters as never,
        ...(requestBody ? { requestBody: requestBody as never } : {}),
        componentSchemas: components.schemas as never,
      }),
      response: new OpenAPIResponseValidator({
        responses: responses as never,
        components: components as never,
      }),
    };
  }
  validators.set(key, made);
  return made;
}

/** A query string's values as the yaml types them (an integer parameter arrives as its digits). */
function typedQuery(query: Record<string, string>, parameters: Json[]): Record<string, unknown> {
  const integers = new Set(
    parameters
      .filter((p) => p.in === 'query' && (p.schema as Json | undefined)?.type === 'integer')
      .map((p) => p.name as string),
  );
  return Object.fromEntries(
    Object.entries(query).map(([k, v]) => [k, integers.has(k) && /^\d+$/.test(v) ? Number(v) : v]),
  );
}

/**
 * Problems of a callback the local PSP sent to the gateway (`{webhookUrl}/rec`, `{webhookUrl}/cobr`) against
 * the request body the yaml gives that callback (WebhookRecBody, WebhookCobRBody).
 */
export function callbackProblems(callback: { path: '/rec' | '/cobr'; body: unknown }): string[] {
  const name = callback.path === '/rec' ? 'WebhookRecBody' : 'WebhookCobRBody';
  const request = new OpenAPIRequestValidator({
    requestBody: (components.requestBodies as Json)[name] as never,
    componentSchemas: components.schemas as never,
  });
  const errors = request.validateRequest({
    headers: { 'content-type': 'application/json' },
    body: callback.body,
    params: {},
    query: {},
  });
  return errors ? [`callback ${callback.path}: ${JSON.stringify(errors.errors)}`] : [];
}

/**
 * Everything a test's local PSP saw against the yaml: each request the gateway sent it and each answer, and each
 * callback it sent the gateway. Empty when the PSP never started.
 */
export function pspProblems(psp: DevPsp | undefined): string[] {
  if (!psp) return [];
  return [
    ...psp.state.exchanges.flatMap(pixApiProblems),
    ...psp.recurring.callbacks.flatMap(callbackProblems),
  ];
}
