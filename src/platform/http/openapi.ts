import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifySchema, RouteOptions } from 'fastify';
import type { ErrorCode } from '../errors/app-error.js';
import { accessOf, ERROR_MEANINGS, errorCatalogue, keyOpensSessionRoute } from './error-catalogue.js';
import {
  BalanceErrorBody,
  BusinessRuleErrorBody,
  EnvelopeErrorBody,
  IpAccessErrorBody,
  TransactionErrorBody,
} from './error-schemas.js';
import {
  ERROR_STATUS,
  type ErrorShape,
  HttpError,
  isBusinessRuleCode,
  isIpAccessCode,
  renderError,
} from './errors.js';
import { exampleOf } from './openapi-examples.js';
import type { Http } from './types.js';

/**
 * The OpenAPI 3.1 document at GET /openapi.json, generated from the route schemas, and its reference page at
 * GET /docs (Swagger UI, every asset served by the gateway). Each route's security scheme comes from the
 * part of the API it belongs to; every error response gets an example body in the route's shape, and every
 * rate-limited route documents its 429.
 */
export async function installOpenApi(app: Http): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payment gateway API',
        version: '1.0.0',
        description: [
          'Server-to-server API of the payment gateway: check the balance, send PIX cashouts, look up sales and',
          'receive signed notifications. Money is in integer cents in responses; cashout amounts are sent in reais.',
          'API-key routes take both `X-Api-Public-Key` and `X-Api-Private-Key` (generated in the panel, under',
          'Integrações → Credenciais de API). Panel routes take the session cookie set by `POST /api/auth/login`, and',
          'changes also the `X-CSRF-Token` it returned. Every response carries `X-Request-Id`.',
        ].join(' '),
      },
      tags: [
        { name: 'public', description: 'Merchant API (API keys)' },
        { name: 'panel', description: 'Panel session routes (session cookie; X-CSRF-Token on changes)' },
        {
          name: 'checkout',
          description:
            "The payer's side of payment links and checkout sessions (no credentials; limited per address)",
        },
        {
          name: 'webhooks',
          description:
            'Permanent webhooks and their delivery log (panel session, or an API key pair: a full-scope key for every route, a read key for the GETs)',
        },
        { name: 'sandbox', description: 'Test helpers (API keys; not available in production)' },
        { name: 'processors', description: 'Payment processor callbacks (signed)' },
        { name: 'providers', description: 'Payout provider callbacks (signed)' },
        { name: 'operations', description: 'Health, metrics and this document' },
        {
          name: 'console',
          description:
            "The operators' console (/ops): the payment company's own staff, with their own session cookie (gw_ops) and X-CSRF-Token on changes",
        },
      ],
      components: {
        securitySchemes: {
          publicKey: { type: 'apiKey', in: 'header', name: 'X-Api-Public-Key' },
          privateKey: { type: 'apiKey', in: 'header', name: 'X-Api-Private-Key' },
          session: { type: 'apiKey', in: 'cookie', name: 'gw_session' },
          operatorSession: { type: 'apiKey', in: 'cookie', name: 'gw_ops' },
          csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
          metricsToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    transformObject: (({ openapiObject }: { openapiObject: unknown }) =>
      finishDocument(openapiObject as Document, app.openapiExtras)) as never,
    transform: ({ schema, url, route }) => ({
      schema: documented(schema as FastifySchema | undefined, url, route as RouteOptions),
      url: url === '/docs/' ? '/docs' : url, // the page's address as the README gives it
    }),
  });
  // the reference page is a route like any other: documented, where the plugin hides it with its assets
  app.addHook('onRoute', (route) => {
    if ((route.url === '/docs' || route.url === '/docs/') && route.method === 'GET') {
      route.schema = {
        tags: ['operations'],
        summary: 'This reference page (Swagger UI; every asset served by the gateway)',
        produces: ['text/html'],
        response: {
          200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      };
    }
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // the page loads nothing from another origin: no online validator badge, no remote fonts or styles; the one
    // style element the pinned Swagger UI writes into the page is let in by its hash, nothing else inline
    transformStaticCSP: (header) =>
      header
        .replace(' validator.swagger.io', '')
        .replace(/ https:(?= |;)/g, '')
        .replace(' upgrade-insecure-requests;', '')
        .replace(/style-src 'self'\s*;/, `style-src 'self' '${SWAGGER_UI_STYLE}';`),
    uiConfig: { deepLinking: true, defaultModelsExpandDepth: 0 },
    theme: { title: 'Payment gateway API reference' },
  });
  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['operations'],
        summary: 'This document: OpenAPI 3.1, generated from the route schemas',
        response: {
          200: { type: 'object', additionalProperties: true, description: 'The OpenAPI document' },
        },
      },
    },
    async () => app.swagger() as unknown as Record<string, unknown>,
  );
}

type Document = Record<string, unknown> & { components?: { schemas?: Record<string, unknown> } };
type Media = { schema?: unknown; example?: unknown; examples?: unknown };
type Operation = {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};

/** The error bodies, named for what they are (the contract's letters in their descriptions). */
const ERROR_BODIES: Record<string, object> = {
  EnvelopeError: EnvelopeErrorBody,
  IpAccessError: IpAccessErrorBody,
  BusinessRuleError: BusinessRuleErrorBody,
  TransactionError: TransactionErrorBody,
  BalanceError: BalanceErrorBody,
};

/**
 * Names the document's schemas: the domains' and the error bodies go under components.schemas, every inline
 * schema equal to one of them becomes a $ref to it, and the domains' `webhooks` section is added.
 */
function finishDocument(doc: Document, extras: Http['openapiExtras']): Document {
  const named = { ...ERROR_BODIES, ...extras.schemas };
  // compared without their own examples: the document moves a response schema's examples to its media type
  const key = (schema: unknown) => {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return canonical(schema);
    const { examples: _examples, ...rest } = schema as Record<string, unknown>;
    return canonical(rest);
  };
  const byText = new Map(Object.entries(named).map(([name, schema]) => [key(asDocumented(schema)), name]));
  const refer = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(refer);
    if (node === null || typeof node !== 'object') return node;
    const name = byText.get(key(node));
    if (name) return { $ref: `#/components/schemas/${name}` };
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, refer(v)]));
  };
  // a named schema refers to the others inside it, never to itself
  const schemas = Object.fromEntries(
    Object.entries(named).map(([name, schema]) => [name, referInside(schema, refer)]),
  );
  const finished = refer(doc) as Document & { paths: Record<string, Record<string, Operation>> };
  for (const [route, fields] of Object.entries(extras.operations)) {
    const [method, url] = route.split(' ') as [string, string];
    const operation = finished.paths?.[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
    if (operation) Object.assign(operation, fields);
  }
  const resolve = (ref: string) => schemas[ref.replace('#/components/schemas/', '')];
  for (const operation of Object.values(finished.paths ?? {}).flatMap((ops) => Object.values(ops))) {
    const bodies = [
      operation.requestBody,
      ...Object.entries(operation.responses ?? {})
        .filter(([status]) => status.startsWith('2'))
        .map(([, response]) => response),
    ];
    for (const body of bodies) {
      const media = body?.content?.['application/json'];
      if (media?.schema && !('example' in media) && !('examples' in media)) {
        media.example = exampleOf(media.schema, resolve);
      }
    }
  }
  return {
    ...finished,
    components: { ...doc.components, schemas: { ...doc.components?.schemas, ...schemas } },
    webhooks: extras.webhooks,
    // what each error code means and what to do about it (docs/errors.md is generated from this document)
    'x-error-codes': Object.fromEntries(
      Object.entries(ERROR_MEANINGS)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([code, { meaning, action }]) => [
          code,
          { status: ERROR_STATUS[code as ErrorCode], meaning, action },
        ]),
    ),
  };
}

function referInside(schema: object, refer: (node: unknown) => unknown): unknown {
  const copy = asDocumented(schema) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(copy).map(([k, v]) => [k, refer(v)]));
}

/**
 * A JSON schema as @fastify/swagger writes it into the document (`const` as a one-value `enum`, a record's
 * `patternProperties` as `additionalProperties`), so that a named schema and its inline copies compare equal.
 */
function asDocumented(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asDocumented);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'const') out.enum = [v];
    else if (k === 'patternProperties' && v && typeof v === 'object' && '^.*$' in v) {
      out.additionalProperties = asDocumented((v as Record<string, unknown>)['^.*$']);
    } else out[k] = asDocumented(v);
  }
  return out;
}

/** JSON with sorted keys: two schemas written alike are the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

function securityFor(
  url: string,
  method: string,
  permission: string | undefined,
): Record<string, string[]>[] | undefined {
  switch (accessOf(url, permission)) {
    case 'api-key':
      return [{ publicKey: [], privateKey: [] }];
    case 'metrics':
      return [{ metricsToken: [] }];
    case 'open':
      return undefined;
    case 'session': {
      const session = method === 'GET' ? [{ session: [] }] : [{ session: [], csrf: [] }];
      // the webhook routes take an API key pair too (a full key every one, a read key the GETs)
      return keyOpensSessionRoute(url) ? [{ publicKey: [], privateKey: [] }, ...session] : session;
    }
    case 'operator':
      return method === 'GET' ? [{ operatorSession: [] }] : [{ operatorSession: [], csrf: [] }];
  }
}

/** The field that carries the code in each error body family. */
const CODE_FIELD: Record<string, (codes: string[]) => Record<string, unknown>> = {
  'Error shape A': (codes) => ({ properties: { error: { properties: { code: { enum: codes } } } } }),
  'Error shape B': (codes) => ({ properties: { code: { enum: codes } } }),
  'Error shape C': (codes) => ({ properties: { errorType: { enum: codes } } }),
  'Error shape D': (codes) => ({ properties: { error: { enum: codes } } }),
  'Error shape E': (codes) => ({ properties: { error: { enum: codes } } }),
};
const SHAPE_OF_MEMBER: Record<string, ErrorShape> = {
  'Error shape A': 'envelope',
  'Error shape D': 'transaction',
  'Error shape E': 'balance',
};

/**
 * An error response of the catalogue: each body family it may take, its code field an `enum` of the codes the
 * route answers at that status in that family, and an example of each code.
 */
function cataloguedError(
  declared: Record<string, unknown> | undefined,
  codes: ErrorCode[],
  routeShape: ErrorShape,
  route: DocumentedRoute,
): Record<string, unknown> {
  const families = new Map<string, Record<string, unknown>>();
  const members = declared
    ? Array.isArray(declared.anyOf)
      ? (declared.anyOf as Record<string, unknown>[])
      : [declared]
    : [];
  for (const m of members) families.set(String(m.description), m);
  const routeFamily = `Error shape ${{ envelope: 'A', transaction: 'D', balance: 'E' }[routeShape]}`;
  // the families of the route's declared body, else its own, that a code without one of its own takes
  const declaredPlain = [...families.keys()].filter((f) => SHAPE_OF_MEMBER[f] !== undefined);
  const plain = declaredPlain.length > 0 ? declaredPlain : [routeFamily];
  const byFamily = new Map<string, ErrorCode[]>();
  const add = (family: string, code: ErrorCode) =>
    byFamily.set(family, [...(byFamily.get(family) ?? []), code]);
  for (const code of codes) {
    if (isIpAccessCode(code)) add('Error shape B', code);
    // a business-rule code takes the business-rule body unless the route declared this status in its own family only (a
    // refund's INSUFFICIENT_BALANCE is in the transaction body)
    else if (isBusinessRuleCode(code) && (families.has('Error shape C') || declaredPlain.length === 0))
      add('Error shape C', code);
    else for (const family of plain) add(family, code);
  }
  const schemas: Record<string, unknown>[] = [];
  const examples: Record<string, { value: unknown }> = {};
  for (const [family, familyCodes] of byFamily) {
    const body = families.get(family) ?? BODY_OF_FAMILY[family]!;
    schemas.push({ allOf: [body, CODE_FIELD[family]!(familyCodes)] });
    // an example of every code, in the family's body
    const shape = SHAPE_OF_MEMBER[family] ?? 'envelope';
    for (const code of familyCodes) {
      const example = exampleMessage(code, family, route);
      const error = new HttpError(code, example, SHAPE_OF_MEMBER[family]);
      examples[code in examples ? `${code} (${family.slice(-1)})` : code] = {
        value: renderError(error, shape),
      };
    }
  }
  // errors are JSON whatever the route's own answer is (a page, a CSV): the media type is written out
  return {
    description: declared?.description ?? 'Error',
    content: {
      'application/json': { schema: schemas.length === 1 ? schemas[0]! : { anyOf: schemas }, examples },
    },
  };
}

/** What the collections of the paths hold, where it is not the collection's name made singular. */
const NOUN_OF_COLLECTION: Record<string, string> = {
  transactions: 'Sale',
  cashout: 'Withdrawal',
  cashouts: 'Withdrawal',
  checkout: 'Checkout session',
  sessions: 'Checkout session',
  pay: 'Payment link',
  billing: 'Billing page',
};

/**
 * A NOT_FOUND example naming what the route looks for: the collection before its first path parameter
 * (`/api/subscriptions/{id}` → "Subscription not found"), or the route itself when it has none.
 */
export function notFoundExample(url: string): string {
  const parts = url.split('/');
  const at = parts.findIndex((p) => p.startsWith(':') || p.startsWith('{'));
  const collection = at > 0 ? parts[at - 1]! : '';
  if (collection === '') return 'Not found';
  const noun =
    NOUN_OF_COLLECTION[collection] ??
    collection
      .replace(/-/g, ' ')
      .replace(/ies$/, 'y')
      .replace(/s$/, '')
      .replace(/^./, (c) => c.toUpperCase());
  return `${noun} not found`;
}

/** What the document knows of a route when it writes its errors' examples. */
interface DocumentedRoute {
  url: string;
  method: string;
  schema: FastifySchema | undefined;
  /** The key scope the route needs (its config's `keyScope`), when it declares one. */
  keyScope: string | undefined;
}

/**
 * An error example's message written for its route, where the catalogue's one would name another (a FORBIDDEN
 * of POST /api/transactions on every route, a body's field on a GET that takes none).
 */
function exampleMessage(code: ErrorCode, family: string, route: DocumentedRoute): string {
  if (code === 'NOT_FOUND') return notFoundExample(route.url);
  if (code === 'VALIDATION_ERROR') return validationExample(route);
  if (code === 'FORBIDDEN') {
    if (family === 'Error shape A') {
      return route.url.startsWith('/api/ops/')
        ? 'This needs the admin role or above; yours is support'
        : 'Your role (viewer) may not do this; ask an owner or admin of the account';
    }
    if (route.method === 'GET' || route.method === 'HEAD') {
      return `${notFoundExample(route.url).replace(/ not found$/, '')} belongs to another account`;
    }
    // a key's scope refused: reads need "read", anything else "full" unless the route says (auth's rule)
    return `This API key's scope is "read"; ${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')} needs a "${route.keyScope ?? 'full'}" key`;
  }
  // a refund's refusals name what is left of the sale and the party whose balance cannot pay (sales/refunds)
  if (route.url.endsWith('/refund')) {
    if (code === 'MAXIMUM_VALUE') return 'At most 4000 cents of this sale are left to refund';
    if (code === 'INSUFFICIENT_BALANCE') {
      return 'Recipient 12 (Loja da Ana Ltda) lacks 1500 cents of available balance for this refund: it needs 5860 cents and has 4360';
    }
  }
  return ERROR_MEANINGS[code].example;
}

/**
 * A VALIDATION_ERROR as the server words it (server.ts) for this route's first input: a body's first required
 * field missing, a query parameter or a path id out of its type; a route that takes none refuses a path
 * that is not valid percent-encoding.
 */
function validationExample(route: DocumentedRoute): string {
  type Part = { properties?: Record<string, { type?: unknown; maximum?: unknown }>; required?: string[] };
  const parts: [string, Part | undefined][] = [
    ['body', route.schema?.body as Part | undefined],
    ['querystring', route.schema?.querystring as Part | undefined],
    ['params', route.schema?.params as Part | undefined],
  ];
  for (const [where, part] of parts) {
    const names = Object.keys(part?.properties ?? {});
    if (names.length === 0) continue;
    const required = part!.required?.[0];
    if (where === 'body' && required) return `Invalid body: must have required property '${required}'`;
    const name = names[0]!;
    const field = part!.properties![name]!;
    const reason =
      typeof field.maximum === 'number'
        ? `must be <= ${field.maximum}`
        : typeof field.type === 'string'
          ? `must be ${field.type}`
          : 'must match the documented schema';
    return `Invalid ${where}/${name}: ${reason}`;
  }
  return route.method === 'GET' || route.method === 'HEAD'
    ? 'Path is not valid percent-encoding'
    : 'Body is not valid JSON';
}

const BODY_OF_FAMILY: Record<string, unknown> = {
  'Error shape A': EnvelopeErrorBody,
  'Error shape B': IpAccessErrorBody,
  'Error shape C': BusinessRuleErrorBody,
  'Error shape D': TransactionErrorBody,
  'Error shape E': BalanceErrorBody,
};

function documented(schema: FastifySchema | undefined, url: string, route: RouteOptions): FastifySchema {
  const method = String([route.method].flat()[0]);
  const permission = route.config?.permission;
  const security = securityFor(url, method, permission);
  const out: FastifySchema & { security?: unknown } = { ...(schema ?? {}) };
  // a route may narrow its kind's security (card tokenization takes the public key alone)
  if (security && !out.security) out.security = security;
  // a session writes only with its CSRF token, whichever door's route it opens (the routes with two doors name
  // their session plainly)
  if (Array.isArray(out.security) && method !== 'GET' && method !== 'HEAD') {
    out.security = (out.security as Record<string, string[]>[]).map((door) =>
      ('session' in door || 'operatorSession' in door) && !('csrf' in door) ? { ...door, csrf: [] } : door,
    );
  }
  const responses = { ...((schema?.response ?? {}) as Record<string, Record<string, unknown>>) };
  const shape: ErrorShape = route.config?.errorShape ?? 'envelope';
  const own = route.config?.errors ?? [];
  const catalogue = errorCatalogue(url, method, own, permission);
  for (const status of Object.keys(responses)) {
    // an error status the route declares but cannot answer is not documented
    if (Number(status) >= 400 && !catalogue.has(Number(status))) delete responses[status];
  }
  const documentedRoute: DocumentedRoute = {
    url,
    method,
    schema,
    keyScope: route.config?.keyScope as string | undefined,
  };
  for (const [status, codes] of catalogue) {
    responses[String(status)] = cataloguedError(responses[String(status)], codes, shape, documentedRoute);
  }
  if (Object.keys(responses).length > 0) out.response = responses;
  return out;
}

/**
 * The hash of the style element Swagger UI's bundle adds to the page as it renders (its logo's SVG colours):
 * CSP blocks it otherwise, and the browser reports the block as an error on every visit.
 */
const SWAGGER_UI_STYLE = 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';
