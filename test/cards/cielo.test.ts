import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevAcquirer } from '../../src/devacquirer/index.js';
import { unseal } from '../../src/platform/crypto/sealed.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { caFileOf, captureLogs, cardBody, cardNumber, dumpData, expectNoCardData } from './cards.js';

let acquirer: DevAcquirer;
let server: TestServer;
let merchant: TestMerchant;
let logs: () => string;
const numbers: string[] = [];
const url = () => `${server.url}/api/cards/tokens`;
const headers = () => ({ 'x-api-public-key': merchant.publicKey });
const used = (n: string) => {
  numbers.push(n);
  return n;
};
const cieloEnv = (a: { merchantId: string; merchantKey: string }, apiUrl: string) => ({
  CARD_ACQUIRER: 'cielo',
  CIELO_CA_FILE: caFileOf(acquirer),
  CIELO_MERCHANT_ID: a.merchantId,
  CIELO_MERCHANT_KEY: a.merchantKey,
  CIELO_API_URL: apiUrl,
  CIELO_QUERY_URL: apiUrl,
  CIELO_TIMEOUT_MS: '2000',
  LOG_LEVEL: 'debug',
});

beforeAll(async () => {
  acquirer = new DevAcquirer();
  await acquirer.start();
  server = await startServer({ workers: false, env: cieloEnv(acquirer, acquirer.url) });
  logs = captureLogs(server);
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await acquirer?.close();
});

describe('CARD_ACQUIRER=cielo, against gateway dev-acquirer', () => {
  it("tokenizes at the acquirer: the gateway keeps the acquirer's CardToken, sealed", async () => {
    const number = used(cardNumber('4'));
    const res = await call<{ token: string; brand: string; lastFour: string }>('POST', url(), {
      headers: headers(),
      body: cardBody(number, { holderName: 'JOAO PEREIRA' }),
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ brand: 'visa', lastFour: number.slice(-4) });
    const [row] = await server.runtime.platform.db.query<{ acquirer: string; acquirer_token_sealed: string }>(
      'SELECT acquirer, acquirer_token_sealed FROM card_tokens',
    );
    expect(row!.acquirer).toBe('cielo');
    const cardToken = unseal(server.runtime.platform.config.secretsKey, row!.acquirer_token_sealed);
    expect(acquirer.cards.get(cardToken)).toEqual({
      CardNumber: `************${number.slice(-4)}`,
      Holder: 'JOAO PEREIRA',
      ExpirationDate: `12/${new Date().getUTCFullYear() + 1}`,
      Brand: 'Visa',
    });
    const master = await call<{ brand: string }>('POST', url(), {
      headers: headers(),
      body: cardBody(used(cardNumber('51'))),
    });
    expect(master.status, master.text).toBe(201);
    expect([...acquirer.cards.values()].map((c) => c.Brand)).toEqual(['Visa', 'Master']);
  });

  it("the acquirer's refusal is 502 PROCESSOR_ERROR; its failure 503 PROCESSOR_UNAVAILABLE", async () => {
    server.logs.expect('request failed: the payment processor did not answer as expected');
    acquirer.failNext(400);
    const refused = await call<{ error: string; message: string }>('POST', url(), {
      headers: headers(),
      body: cardBody(used(cardNumber('4'))),
    });
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body).toMatchObject({ error: 'PROCESSOR_ERROR' });
    expect(refused.body.message).toMatch(/Cielo refused the card \(HTTP 400: 999 Fault asked for\)/);
    acquirer.failNext(500);
    const down = await call<{ error: string }>('POST', url(), {
      headers: headers(),
      body: cardBody(used(cardNumber('4'))),
    });
    expect(down.status, down.text).toBe(503);
    expect(down.body.error).toBe('PROCESSOR_UNAVAILABLE');
    expect(down.headers['access-control-allow-origin']).toBe('*');
  });

  it('wrong merchant credentials are refused by the acquirer (502); an unreachable acquirer is 503', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const cases = [
      [
        cieloEnv({ merchantId: acquirer.merchantId, merchantKey: 'wrong' }, acquirer.url),
        502,
        'PROCESSOR_ERROR',
      ],
      [cieloEnv(acquirer, `https://127.0.0.1:${closedPort}`), 503, 'PROCESSOR_UNAVAILABLE'],
    ] as const;
    for (const [env, status, code] of cases) {
      const other = await startServer({ workers: false, env });
      other.logs.expect('request failed: the payment processor did not answer as expected');
      const otherLogs = captureLogs(other);
      try {
        const m = await createMerchant(other);
        const number = used(cardNumber('4'));
        const res = await call<{ error: string }>('POST', `${other.url}/api/cards/tokens`, {
          headers: { 'x-api-public-key': m.publicKey },
          body: cardBody(number),
        });
        expect(res.status, res.text).toBe(status);
        expect(res.body.error).toBe(code);
        expect(res.text).not.toContain(number);
        expectNoCardData('the logs', otherLogs(), numbers, ['731']);
      } finally {
        await other.close();
      }
    }
  });

  it('leaves no card number or CVV in the database or the logs', async () => {
    expectNoCardData('the database', await dumpData(server.databaseUrl), numbers, ['731']);
    expectNoCardData('the logs', logs(), numbers, ['731']);
  });
});
