import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SDK_TYPES, sdkTypes } from '../../scripts/sdk-types.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ workers: false });
});
afterAll(() => server?.close());

// the SDK's types are generated from the document; a route or schema changed without `npm run sdk:types` fails
it("has the types openapi-typescript makes of the gateway's /openapi.json today", async () => {
  const doc = await call<object>('GET', `${server.url}/openapi.json`);
  expect(doc.status).toBe(200);
  expect(readFileSync(SDK_TYPES, 'utf8')).toBe(await sdkTypes(doc.body));
});
