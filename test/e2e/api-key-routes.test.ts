/** Every API-key route refuses bad keys in its own documented 401 shape, and foreign IPs with 403 shape B. */
import { afterAll, beforeAll } from 'vitest';
import { describeApiKeyAuth } from '../support/auth-checks.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());
const s = () => server;

const uuid = '123e4567-e89b-42d3-a456-426614174000';
// GET /api/public/balance: test/ledger/balance.test.ts
describeApiKeyAuth(
  { method: 'POST', path: '/api/public/cashout', body: { amount: 150, pixKey: '52998224725' }, shape: 'D' },
  s,
);
describeApiKeyAuth({ method: 'GET', path: `/api/public/cashout/${uuid}`, shape: 'D' }, s);
describeApiKeyAuth(
  { method: 'POST', path: `/api/recipients/${uuid}/cashout`, body: { amount: 150 }, shape: 'D' },
  s,
);
describeApiKeyAuth({ method: 'GET', path: '/api/public/cashout/1', shape: 'D' }, s);
describeApiKeyAuth({ method: 'GET', path: `/api/transactions/${uuid}`, shape: 'D' }, s);
describeApiKeyAuth({ method: 'GET', path: '/api/transactions/1', shape: 'D' }, s);
// a panel session never opens /api/transactions/* (decisions.md, Panel session routes) but its cancel (Part 3):
// the panel refunds at /api/sales/{id}/refund and lists refunds at /api/sales/{id}/refunds
describeApiKeyAuth({ method: 'GET', path: '/api/transactions', shape: 'D' }, s);
describeApiKeyAuth({ method: 'POST', path: '/api/transactions', body: {}, shape: 'D' }, s);
describeApiKeyAuth({ method: 'POST', path: `/api/transactions/${uuid}/refund`, body: {}, shape: 'D' }, s);
describeApiKeyAuth({ method: 'GET', path: `/api/transactions/${uuid}/refunds`, shape: 'D' }, s);
describeApiKeyAuth({ method: 'POST', path: `/api/transactions/${uuid}/capture`, body: {}, shape: 'D' }, s);
describeApiKeyAuth({ method: 'GET', path: `/api/transactions/${uuid}/boleto.pdf`, shape: 'D' }, s);
describeApiKeyAuth(
  { method: 'POST', path: `/api/transactions/${uuid}/cancel`, body: {}, shape: 'D', sessionOpens: true },
  s,
);
// the panel's test charge of an account in review opens it by the session too
describeApiKeyAuth(
  { method: 'POST', path: '/api/sandbox/sales', body: {}, shape: 'A', sessionOpens: true },
  s,
);
describeApiKeyAuth(
  { method: 'POST', path: `/api/sandbox/sales/${uuid}/status`, body: { status: 'PAGO' }, shape: 'A' },
  s,
);
describeApiKeyAuth(
  { method: 'POST', path: `/api/sandbox/cashouts/${uuid}/result`, body: { result: 'COMPLETED' }, shape: 'A' },
  s,
);
describeApiKeyAuth({ method: 'POST', path: '/api/sandbox/recurrences', body: {}, shape: 'A' }, s);
describeApiKeyAuth({ method: 'POST', path: `/api/sandbox/recurrences/${uuid}/cycles`, shape: 'A' }, s);
describeApiKeyAuth({ method: 'POST', path: '/api/sandbox/carts', body: {}, shape: 'A' }, s);
describeApiKeyAuth({ method: 'POST', path: `/api/sandbox/carts/${uuid}/abandon`, shape: 'A' }, s);
