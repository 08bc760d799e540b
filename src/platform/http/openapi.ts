import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifySchema, RouteOptions } from 'fastify';
import {
  BalanceErrorBody,
  BusinessRuleErrorBody,
  EnvelopeErrorBody,
  ERROR_BODY_OF_SHAPE,
  IpAccessErrorBody,
  TransactionErrorBody,
} from './error-schemas.js';
import { AppError, type ErrorCode, type ErrorShape, renderError } from './errors.js';
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
          'Integrations → API credentials). Panel routes take the session cookie set by `POST /api/auth/login`, and',
          'changes also the `X-CSRF-Token` it returned. Every response carries `X-Request-Id`.',
        ].join(' '),
      },
      tags: [
        { name: 'public', description: 'Merchant API (API keys)' },
        { name: 'panel', description: 'Panel session routes (session cookie; X-CSRF-Token on changes)' },
        { name: 'webhooks', description: 'Permanent webhooks and their delivery log (panel session)' },
        { name: 'sandbox', description: 'Test helpers (API keys; not available in production)' },
        { name: 'processors', description: 'Payment processor callbacks (signed)' },
        { name: 'providers', description: 'Payout provider callbacks (signed)' },
        { name: 'operations', description: 'Health, metrics and this document' },
      ],
      components: {
        securitySchemes: {
          publicKey: { type: 'apiKey', in: 'header', name: 'X-Api-Public-Key' },
          privateKey: { type: 'apiKey', in: 'header', name: 'X-Api-Private-Key' },
          session: { type: 'apiKey', in: 'cookie', name: 'gw_session' },
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
    // the page loads nothing from another origin: no online validator badge, no remote fonts or styles
    transformStaticCSP: (header) =>
      header
        .replace(' validator.swagger.io', '')
        .replace(/ https:(?= |;)/g, '')
        .replace(' upgrade-insecure-requests;', ''),
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

const API_KEY_PREFIXES = ['/api/public/', '/api/transactions', '/api/sandbox/'];

function securityFor(url: string, method: string): Record<string, string[]>[] | undefined {
  if (API_KEY_PREFIXES.some((p) => url.startsWith(p))) return [{ publicKey: [], privateKey: [] }];
  if (url === '/metrics') return [{ metricsToken: [] }];
  if (url.startsWith('/api/providers/') || url === '/api/auth/login' || !url.startsWith('/api/'))
    return undefined;
  return method === 'GET' ? [{ session: [] }] : [{ session: [], csrf: [] }];
}

/** A representative error per status, rendered in the route's shape exactly as the error handler would. */
const EXAMPLE_BY_STATUS: Record<string, [ErrorCode, string]> = {
  '400': ['VALIDATION_ERROR', 'Invalid body/amount: must be number'],
  '401': ['UNAUTHORIZED', 'Missing or invalid API keys'],
  '403': ['FORBIDDEN', 'Operation not permitted'],
  '404': ['NOT_FOUND', 'Not found'],
  '409': ['CONFLICT', 'The resource changed meanwhile'],
  '413': ['PAYLOAD_TOO_LARGE', 'Request body larger than 1 MiB'],
  '422': ['IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key already used with a different request'],
  '429': ['RATE_LIMITED', 'Too many requests: retry in 1 s'],
  '500': ['INTERNAL_ERROR', 'Internal server error'],
  '502': ['PROCESSOR_ERROR', 'The payment processor failed to open the charge: PUT /cob answered 503'],
  '503': ['SERVICE_UNAVAILABLE', 'Service unavailable'],
};
/** Shapes B and C carry their own codes (IP allow-list, cashout business errors), whatever the route's. */
const EXAMPLE_OF_OWN_SHAPE: Record<'ip-access' | 'business-rule', Record<string, [ErrorCode, string]>> = {
  'ip-access': {
    '400': ['INVALID_IP', 'Invalid IP address: "10.0.0.300"'],
    '403': ['IP_NOT_ALLOWED', 'IP address 203.0.113.7 is not allowed for this API key'],
  },
  'business-rule': {
    '403': ['API_WITHDRAWAL_DISABLED_GLOBALLY', 'API withdrawals are disabled for this user'],
    '409': ['IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed'],
    '422': ['INSUFFICIENT_BALANCE', 'Insufficient balance: available 10000, requested 15000 plus fees'],
  },
};
const SHAPES: Record<string, ErrorShape | 'ip-access' | 'business-rule'> = {
  'Error shape A': 'envelope',
  'Error shape B': 'ip-access',
  'Error shape C': 'business-rule',
  'Error shape D': 'transaction',
  'Error shape E': 'balance',
};

/** Example bodies of an error response: one per shape it may take (a union lists several). */
function examplesOf(status: string, body: Record<string, unknown>): unknown[] {
  const members = Array.isArray(body.anyOf) ? (body.anyOf as Record<string, unknown>[]) : [body];
  return members.flatMap((member) => {
    const shape = SHAPES[String(member.description)];
    if (!shape) return [];
    if (shape === 'ip-access' || shape === 'business-rule') {
      const example = EXAMPLE_OF_OWN_SHAPE[shape][status];
      return example ? [renderError(new AppError(example[0], example[1]), 'envelope')] : [];
    }
    const example = EXAMPLE_BY_STATUS[status];
    return example ? [renderError(new AppError(example[0], example[1], {}, shape), shape)] : [];
  });
}

function documented(schema: FastifySchema | undefined, url: string, route: RouteOptions): FastifySchema {
  const method = String([route.method].flat()[0]);
  const security = securityFor(url, method);
  const out: FastifySchema & { security?: unknown } = { ...(schema ?? {}) };
  if (security) out.security = security;
  const responses = { ...((schema?.response ?? {}) as Record<string, Record<string, unknown>>) };
  const rateLimited = security?.[0]?.publicKey !== undefined || url === '/api/auth/login';
  const shape: ErrorShape = route.config?.errorShape ?? 'envelope';
  if (rateLimited && !responses['429']) responses['429'] = schemaOfShape(shape);
  // the database lost (a failover under way): every API route reads or writes it, so may answer 503
  if (!responses['503'] && url.startsWith('/api/')) responses['503'] = schemaOfShape(shape);
  for (const [status, body] of Object.entries(responses)) {
    if (Number(status) < 400 || body.examples) continue;
    const examples = examplesOf(status, body);
    if (examples.length > 0) responses[status] = { ...body, examples };
  }
  if (Object.keys(responses).length > 0) out.response = responses;
  return out;
}

/** The route family's error body schema (what the error handler renders for it). */
function schemaOfShape(shape: ErrorShape): Record<string, unknown> {
  return ERROR_BODY_OF_SHAPE[shape] as unknown as Record<string, unknown>;
}
