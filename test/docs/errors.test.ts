import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS_DOC, errorsDoc } from '../../scripts/errors-doc.js';
import { ERROR_STATUS } from '../../src/platform/http/errors.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
type Doc = Parameters<typeof errorsDoc>[0];
let doc: Doc;
beforeAll(async () => {
  server = await startServer({ workers: false });
  doc = (await call<Doc>('GET', `${server.url}/openapi.json`)).body;
});
afterAll(() => server?.close());

describe('the error catalogue', () => {
  // docs/errors.md is generated from the document; a route's codes changed without `npm run errors:doc` fails
  it("docs/errors.md is what `npm run errors:doc` makes of the gateway's /openapi.json today", () => {
    expect(readFileSync(ERRORS_DOC, 'utf8')).toBe(errorsDoc(doc));
  });

  it('explains every code, and lists at every error status of every operation the codes of that status', () => {
    expect(Object.keys(doc['x-error-codes']).sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    const wrong: string[] = [];
    for (const [url, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          if (Number(status) < 400) continue;
          const codes = [...JSON.stringify(response).matchAll(/"enum":\[([^\]]*)\]/g)].flatMap((m) =>
            JSON.parse(`[${m[1]}]`),
          ) as (keyof typeof ERROR_STATUS)[];
          if (codes.length === 0) wrong.push(`${method} ${url} ${status}: no codes`);
          for (const code of codes) {
            if (String(ERROR_STATUS[code]) !== status) wrong.push(`${method} ${url} ${status}: ${code}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("lists a route's own codes: the refund's 409 and 502, the cashout's business rules, login's 429", () => {
    const text = (path: string, method: string, status: string) =>
      JSON.stringify(doc.paths[path]![method]!.responses![status]);
    expect(text('/api/transactions/{id}/refund', 'post', '409')).toContain('"CONFLICT"');
    expect(text('/api/transactions/{id}/refund', 'post', '502')).toContain('"PROCESSOR_ERROR"');
    expect(text('/api/public/cashout', 'post', '422')).toContain('"INSUFFICIENT_BALANCE"');
    expect(text('/api/auth/login', 'post', '429')).toContain('"RATE_LIMITED"');
    // a code the route cannot answer is not offered: a balance read has no idempotency
    expect(text('/api/public/balance', 'get', '401')).not.toContain('IDEMPOTENCY');
    expect(doc.paths['/api/public/balance']!.get!.responses!['422']).toBeUndefined();
  });
});
