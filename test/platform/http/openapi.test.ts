import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '../../../src/webhooks/events.js';
import { call } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { security?: unknown; responses: Record<string, { content?: unknown }> }>
  >;
};
let doc: Doc;

beforeAll(async () => {
  server = await startServer();
  doc = (await call<Doc>('GET', `${server.url}/openapi.json`)).body;
});
afterAll(() => server?.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (checked by a maintained validator)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every registered route, itself and the reference page included, but not the pages’ files', () => {
    // the reference page's own files, the panel's and the console's pages and the checkout page's are not API routes; the page and
    // this document are
    const page = (url: string) =>
      url.startsWith('/docs/') ||
      url.startsWith('/assets/') ||
      url.startsWith('/checkout-page/assets/') ||
      ['/', '/index.html', '/ops', '/ops/', '/ops.html'].includes(url);
    const missing = server.runtime
      .app!.routeList.filter((r) => !page(r.url))
      .filter((r) => {
        const path = r.url.replace(/:([A-Za-z]+)/g, '{$1}');
        return !doc.paths[path]?.[r.method.toLowerCase()];
      })
      .map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });

  it('every route schema compiles (they are compiled by their first request; a broken one must fail here)', () => {
    expect(() => server.runtime.app!.compileSchemas()).not.toThrow();
  });

  it('names the key headers and the session cookie as security, and shows error examples in the route’s shape', () => {
    const balance = doc.paths['/api/public/balance']!.get!;
    expect(balance.security).toEqual([{ publicKey: [], privateKey: [] }]);
    const unauthorized = JSON.stringify(balance.responses['401']);
    expect(unauthorized).toContain('"error":"UNAUTHORIZED"'); // shape E
    expect(JSON.stringify(balance.responses['429'])).toContain('RATE_LIMITED');
    const ips = doc.paths['/api/settings/allowed-ips']!.put!;
    expect(ips.security).toEqual([{ session: [], csrf: [] }]);
    expect(doc.paths['/api/auth/login']!.post!.security).toBeUndefined();
  });

  it('names the CSRF token beside the session on every route that writes, the routes with two doors included', () => {
    const bare: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (method === 'get' || method === 'head') continue;
        for (const door of (op.security ?? []) as Record<string, string[]>[]) {
          if (('session' in door || 'operatorSession' in door) && !('csrf' in door))
            bare.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(bare).toEqual([]);
    expect(doc.paths['/api/transactions/{id}/cancel']!.post!.security).toEqual([
      { publicKey: [], privateKey: [] },
      { session: [], csrf: [] },
    ]);
  });

  it('gives every error response an example, one per shape a union allows, with the shape’s own codes', () => {
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const media = (response.content as Record<string, Record<string, unknown>> | undefined)?.[
            'application/json'
          ];
          if (!media?.example && !media?.examples) missing.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
    const cashout = doc.paths['/api/public/cashout']!.post!.responses;
    const examples = (status: string) => JSON.stringify(cashout[status]!.content);
    expect(examples('422')).toContain('"errorType":"INSUFFICIENT_BALANCE"'); // shape C
    expect(examples('403')).toContain('"errorType":"API_WITHDRAWAL_DISABLED_GLOBALLY"');
    expect(examples('403')).toContain('"code":"IP_NOT_ALLOWED"'); // shape B
    // a NOT_FOUND example names what its route looks for
    const notFound = (path: string, method: 'get' | 'post') =>
      JSON.stringify(doc.paths[path]![method]!.responses['404']!.content);
    expect(notFound('/api/subscriptions/{id}', 'get')).toContain('Subscription not found');
    expect(notFound('/api/public/cashout/{id}', 'get')).toContain('Withdrawal not found');
    expect(notFound('/api/transactions/{id}', 'get')).toContain('Sale not found');
    expect(notFound('/api/disputes/{id}', 'get')).toContain('Dispute not found');
    // a webhook route a key opens refuses the key's scope in shape D, a user's role in shape A
    const webhook403 = JSON.stringify(doc.paths['/api/webhook']!.post!.responses['403']!.content);
    expect(webhook403).toContain(
      '"message":"This API key\'s scope is \\"read\\"; POST /api/webhook needs a \\"full\\" key","error":"FORBIDDEN"',
    );
    expect(webhook403).toContain('"success":false,"error":{"code":"FORBIDDEN","message":"Your role (viewer)');
    // examples written for their route: a scope refusal names it, a GET's 400 no body field
    expect(examples('403')).not.toContain('POST /api/transactions');
    const balance400 = JSON.stringify(doc.paths['/api/public/balance']!.get!.responses['400']!.content);
    expect(balance400).not.toContain('Invalid body');
    const events400 = JSON.stringify(doc.paths['/api/events']!.get!.responses['400']!.content);
    expect(events400).toMatch(/Invalid querystring\//);
    const charge400 = JSON.stringify(doc.paths['/api/transactions']!.post!.responses['400']!.content);
    expect(charge400).toContain("Invalid body: must have required property 'amount'");
  });

  it('names its schemas (Balance, Withdrawal, Sale, Event, each error shape) and refers to them', () => {
    const schemas = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components
      .schemas;
    for (const name of [
      'Balance',
      'Withdrawal',
      'Sale',
      'Event',
      'EnvelopeError',
      'IpAccessError',
      'BusinessRuleError',
      'TransactionError',
      'BalanceError',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    const at = (path: string, method: string) =>
      JSON.stringify(
        (doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[path]![method]!
          .responses['200'],
      );
    expect(at('/api/public/balance', 'get')).toContain('"$ref":"#/components/schemas/Balance"');
    expect(at('/api/transactions/{id}', 'get')).toContain('#/components/schemas/Sale"');
    expect(at('/api/events/{id}', 'get')).toContain('#/components/schemas/Event"');
  });

  it('describes the body of every event under webhooks, and gives every operation a summary', () => {
    const webhooks = (
      doc as unknown as { webhooks: Record<string, { post: { summary: string; requestBody: unknown } }> }
    ).webhooks;
    expect(Object.keys(webhooks).sort()).toEqual([...EVENT_NAMES].sort());
    for (const [event, op] of Object.entries(webhooks)) {
      expect(op.post.summary, event).toMatch(/\w/);
      const kind = event.startsWith('sale.')
        ? 'Sale'
        : event.startsWith('withdrawal.')
          ? 'Withdrawal'
          : event.startsWith('dispute.')
            ? 'Dispute'
            : event.startsWith('anticipation.')
              ? 'Anticipation'
              : event.startsWith('subscription.') || event.startsWith('invoice.')
                ? 'Subscription'
                : 'Cart';
      expect(JSON.stringify(op.post.requestBody), event).toContain(
        `#/components/schemas/${kind}Notification"`,
      );
    }
    const missing = Object.entries(doc.paths as Record<string, Record<string, { summary?: string }>>).flatMap(
      ([path, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => !op.summary)
          .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('gives every JSON request body and 2xx answer a realistic example, never generated filler', () => {
    const without: string[] = [];
    type Media = { example?: unknown; examples?: unknown };
    type Op = {
      requestBody?: { content?: Record<string, Media> };
      responses?: Record<string, { content?: Record<string, Media> }>;
    };
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Op>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const bodies = [
          ['request', op.requestBody] as const,
          ...Object.entries(op.responses ?? {}).filter(([status]) => status.startsWith('2')),
        ];
        for (const [what, body] of bodies) {
          const media = body?.content?.['application/json'];
          if (!media) continue;
          const example = media.example ?? media.examples;
          if (example === undefined) without.push(`${method.toUpperCase()} ${path} ${what}`);
          expect(JSON.stringify(example ?? null), `${method} ${path} ${what}`).not.toMatch(
            /"string"|stringstrin/,
          );
        }
      }
    }
    expect(without).toEqual([]);
  });
});

/** Every example of the document beside the schema it illustrates (request bodies and every response). */
function examplesWithSchemas(d: Doc): { where: string; schema: unknown; example: unknown }[] {
  type Media = { schema?: unknown; example?: unknown; examples?: unknown };
  type Op = {
    requestBody?: { content?: Record<string, Media> };
    responses?: Record<string, { content?: Record<string, Media> }>;
  };
  const out: { where: string; schema: unknown; example: unknown }[] = [];
  for (const [path, ops] of Object.entries(d.paths as Record<string, Record<string, Op>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const bodies = [['request', op.requestBody] as const, ...Object.entries(op.responses ?? {})];
      for (const [what, body] of bodies) {
        const media = body?.content?.['application/json'];
        if (!media?.schema) continue;
        // a media type's `examples` are Example Objects: the example is each one's `value`
        const examples =
          media.example !== undefined
            ? [media.example]
            : Object.values((media.examples ?? {}) as Record<string, { value: unknown }>).map((e) => e.value);
        for (const example of examples) {
          out.push({ where: `${method.toUpperCase()} ${path} ${what}`, schema: media.schema, example });
        }
      }
    }
  }
  return out;
}

describe('examples', () => {
  it('are valid for their schema: every field of every example, requests, answers and errors', () => {
    const schemas = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components
      .schemas;
    const inline = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(inline);
      if (node === null || typeof node !== 'object') return node;
      const ref = (node as { $ref?: string }).$ref;
      if (ref) return inline(schemas[ref.replace('#/components/schemas/', '')]);
      return Object.fromEntries(
        Object.entries(node)
          .filter(([k]) => k !== 'examples' && k !== 'example')
          .map(([k, v]) => [k, inline(v)]),
      );
    };
    const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
    const invalid: string[] = [];
    for (const { where, schema, example } of examplesWithSchemas(doc)) {
      const validate = ajv.compile(inline(schema) as object);
      if (!validate(example)) {
        invalid.push(
          `${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(example).slice(0, 200)}`,
        );
      }
    }
    expect(invalid).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('serves the reference page with every asset from the gateway itself', async () => {
    const page = await call('GET', `${server.url}/docs/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger');
    expect(page.text).toContain('<title>Payment gateway API reference</title>');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//); // nothing from another origin
      const res = await call('GET', new URL(asset, `${server.url}/docs/`).toString());
      expect(res.status, asset).toBe(200);
    }
    const init = await call('GET', `${server.url}/docs/static/swagger-initializer.js`);
    expect(init.status).toBe(200);
    expect(init.text).toContain('validatorUrl: null'); // no call to the online validator
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https:|swagger\.io/);
  });
});
