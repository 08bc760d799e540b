/**
 * The panel's card charge ("Nova cobrança"): the card tokenized by the panel's own route (a session and its
 * CSRF token, the sales.create permission), then charged by POST /api/sales. No card number kept or logged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { captureLogs, cardBody, cardEnding, dumpData, expectNoCardData } from './cards.js';

let server: TestServer;
let merchant: TestMerchant;
let logs: () => string;

beforeAll(async () => {
  server = await startServer({ workers: false, env: { LOG_LEVEL: 'debug' } });
  logs = captureLogs(server);
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

const charge = (token: string, installments: number) => ({
  amount: 30000,
  paymentMethod: 'CREDIT_CARD',
  card: { token },
  installments,
  customer: {
    name: 'Maria Silva',
    email: 'maria@example.com',
    document: '52998224725',
    phone: '11987654321',
  },
  items: [{ title: 'Curso online', unitPrice: 30000, quantity: 1, tangible: false }],
});

describe('POST /api/panel/cards/tokens and a card charge from the panel', () => {
  it('tokenizes with the session, and POST /api/sales charges the token in installments', async () => {
    const number = cardEnding('1');
    const token = await call<{ token: string; brand: string; lastFour: string }>(
      'POST',
      `${server.url}/api/panel/cards/tokens`,
      { headers: merchant.panel, body: cardBody(number) },
    );
    expect(token.status, token.text).toBe(201);
    expect(token.body).toMatchObject({ brand: 'visa', lastFour: number.slice(-4) });
    const sale = await call<{ status: string; installments: number }>('POST', `${server.url}/api/sales`, {
      headers: merchant.panel,
      body: charge(token.body.token, 4),
    });
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body).toMatchObject({ status: 'PAGO', installments: 4 });
    expectNoCardData('the database', await dumpData(server.databaseUrl), [number], ['731']);
    expectNoCardData('the logs', logs(), [number], ['731']);
  });

  it('needs a session and its CSRF token: no key, no cookie, no token is 401 or 403', async () => {
    const none = await call('POST', `${server.url}/api/panel/cards/tokens`, {
      body: cardBody(cardEnding('1')),
    });
    expect(none.status).toBe(401);
    const noCsrf = await call('POST', `${server.url}/api/panel/cards/tokens`, {
      headers: { cookie: merchant.panel.cookie! },
      body: cardBody(cardEnding('1')),
    });
    expect(noCsrf.status).toBe(403);
    const keys = await call('POST', `${server.url}/api/panel/cards/tokens`, {
      headers: merchant.keys,
      body: cardBody(cardEnding('1')),
    });
    expect(keys.status).toBe(401);
  });
});
