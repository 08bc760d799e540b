import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredCardTokens } from '../../src/cards/index.js';
import { spendToken, TOKEN_UNUSABLE, tokenInTx, tokenToUse } from '../../src/cards/tokens.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  badCheckDigit,
  captureLogs,
  cardBody,
  cardNumber,
  dumpData,
  expectNoCardData,
  nextYear,
} from './cards.js';

let server: TestServer;
let merchant: TestMerchant;
let logs: () => string;
const numbers: string[] = [];
const cvvs = ['731', '4096', '58'];
const url = () => `${server.url}/api/cards/tokens`;
const publicOnly = () => ({ 'x-api-public-key': merchant.publicKey });
const rows = async () =>
  (await server.runtime.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM card_tokens'))[0]!.n;
/** A number this run uses: searched for in the database and the logs at the end. */
const used = (n: string) => {
  numbers.push(n);
  return n;
};

beforeAll(async () => {
  server = await startServer({ workers: false, env: { LOG_LEVEL: 'debug' } });
  logs = captureLogs(server);
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe('POST /api/cards/tokens (sandbox acquirer)', () => {
  it('tokenizes a valid card of each brand: 201 with brand, last four and expiry', async () => {
    const cards = [
      ['visa', used(cardNumber('4')), '731'],
      ['mastercard', used(cardNumber('52')), '731'],
      ['mastercard', used(cardNumber('2223')), '731'],
      ['amex', used(cardNumber('37', 15)), '4096'],
      ['elo', used(cardNumber('636368')), '731'],
      ['elo', used(cardNumber('401178')), '731'],
      ['hipercard', used(cardNumber('606282')), '731'],
    ] as const;
    for (const [brand, number, cvv] of cards) {
      const res = await call<Record<string, unknown>>('POST', url(), {
        headers: publicOnly(),
        body: cardBody(number, { cvv }),
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        token: expect.stringMatching(/^tok_[A-Za-z0-9_-]{32}$/),
        brand,
        lastFour: number.slice(-4),
        expMonth: 12,
        expYear: nextYear(),
      });
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
    const stored = await server.runtime.platform.db.query<Record<string, unknown>>(
      'SELECT token_hash, acquirer, acquirer_token_sealed, brand, last_four, expires_at - created_at AS life FROM card_tokens',
    );
    expect(stored).toHaveLength(cards.length);
    for (const row of stored) {
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.acquirer).toBe('sandbox');
      expect(row.acquirer_token_sealed).toMatch(/^v1\./);
      expect(row.life).toMatchObject({ minutes: 15 });
    }
  });

  it('refuses a failed check digit, a past expiry, a bad CVV: 400 in shape D, nothing stored', async () => {
    const before = await rows();
    const visa = used(cardNumber('4'));
    const amex = used(cardNumber('34', 15));
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1));
    const cases = [
      [cardBody(used(badCheckDigit(visa))), /number is not a valid card number/],
      [
        cardBody(visa, { expMonth: lastMonth.getUTCMonth() + 1, expYear: lastMonth.getUTCFullYear() }),
        /expired|expYear/,
      ],
      [cardBody(visa, { cvv: '58' }), /cvv must be 3 digits/],
      [cardBody(amex, { cvv: '731' }), /cvv must be 4 digits for amex/],
      [cardBody(visa, { expMonth: 13 }), /expMonth/],
      [cardBody(visa, { cvv: 731 }), /cvv/],
      [cardBody(visa, { pan: visa }), /additional properties/],
    ] as const;
    for (const [body, message] of cases) {
      const res = await call<{ success: boolean; error: string; message: string }>('POST', url(), {
        headers: publicOnly(),
        body,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR' });
      expect(res.text).toMatch(message);
      expect(res.text).not.toContain(visa.slice(0, 10));
      expect(res.text).not.toContain('731');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
    const garbled = await call('POST', url(), {
      headers: { ...publicOnly(), 'content-type': 'application/json' },
      body: `{"number":"${visa}","cvv":"731",`,
    });
    expect(garbled.status).toBe(400);
    expect(garbled.text).not.toContain(visa);
    expect(await rows()).toBe(before);
  });

  it('takes the public key alone; a wrong public key, or a wrong private key beside it, is 401', async () => {
    const number = used(cardNumber('4'));
    const both = await call('POST', url(), { headers: merchant.keys, body: cardBody(number) });
    expect(both.status, both.text).toBe(201);
    const refused: Record<string, string>[] = [
      {},
      { 'x-api-public-key': 'pk_nobody' },
      { 'x-api-public-key': merchant.publicKey, 'x-api-private-key': 'sk_wrong' },
      { 'x-api-private-key': merchant.privateKey },
    ];
    for (const headers of refused) {
      const res = await call<{ error: string }>('POST', url(), { headers, body: cardBody(number) });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error).toBe('UNAUTHORIZED');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
  });

  it('answers the CORS preflight for any origin, without a key', async () => {
    const res = await call('OPTIONS', url(), {
      headers: {
        origin: 'https://loja.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-api-public-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(res.headers['access-control-allow-headers'])).toMatch(/content-type.*x-api-public-key/);
  });

  it('a token is used once, by its own account, within 15 minutes', async () => {
    const number = used(cardNumber('55'));
    const res = await call<{ token: string }>('POST', url(), {
      headers: publicOnly(),
      body: cardBody(number),
    });
    expect(res.status, res.text).toBe(201);
    const { db, config } = server.runtime.platform;
    // read (as the charges arriving together read theirs, or in the transaction), then used in a transaction
    const use = (accountId: number, token = res.body.token) =>
      db.tx(async (tx) => {
        const read = await tokenInTx(tx, config.secretsKey, accountId, token);
        if (read) await spendToken(tx, read.id);
        return read;
      });
    expect(await use(merchant.accountId + 1000)).toBeNull();
    expect(await tokenToUse(db, config.secretsKey, merchant.accountId + 1000, res.body.token)).toBeNull();
    const shared = await tokenToUse(db, config.secretsKey, merchant.accountId, res.body.token);
    expect(shared).toMatchObject({ acquirer: 'sandbox', brand: 'mastercard', lastFour: number.slice(-4) });
    const first = await use(merchant.accountId);
    expect(first).toMatchObject({ acquirer: 'sandbox', brand: 'mastercard', lastFour: number.slice(-4) });
    expect(first!.acquirerToken).toMatch(/^sandbox-/);
    expect(await use(merchant.accountId)).toBeNull();
    expect(await tokenToUse(db, config.secretsKey, merchant.accountId, res.body.token)).toBeNull();
    // read before another use committed: the use checks again, and refuses
    await expect(db.tx((tx) => spendToken(tx, shared!.id))).rejects.toThrow(TOKEN_UNUSABLE);
    const late = await call<{ token: string }>('POST', url(), {
      headers: publicOnly(),
      body: cardBody(number),
    });
    await db.query(`UPDATE card_tokens SET created_at = created_at - interval '16 minutes',
      expires_at = expires_at - interval '16 minutes' WHERE used_at IS NULL`);
    expect(await use(merchant.accountId, late.body.token)).toBeNull();
    expect(await use(merchant.accountId, 'tok_short')).toBeNull();
  });

  it('forgets tokens never used a day after they expired, and keeps used ones', async () => {
    const { db } = server.runtime.platform;
    for (let i = 0; i < 2; i++) {
      const res = await call('POST', url(), { headers: publicOnly(), body: cardBody(used(cardNumber('4'))) });
      expect(res.status).toBe(201);
    }
    const [{ n: usedBefore }] = (await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM card_tokens WHERE used_at IS NOT NULL',
    )) as [{ n: number }];
    await db.query(`UPDATE card_tokens SET expires_at = now() - interval '25 hours',
      created_at = now() - interval '26 hours' WHERE id IN (SELECT id FROM card_tokens ORDER BY id DESC LIMIT 1)`);
    expect(await deleteExpiredCardTokens(db)).toBe(1);
    expect(await deleteExpiredCardTokens(db)).toBe(0);
    const [{ n: usedAfter }] = (await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM card_tokens WHERE used_at IS NOT NULL',
    )) as [{ n: number }];
    expect(usedAfter).toBe(usedBefore);
  });

  it('leaves no card number or CVV in the database or the logs', async () => {
    expect(numbers.length).toBeGreaterThan(8);
    expectNoCardData('the database', await dumpData(server.databaseUrl), numbers, cvvs);
    expectNoCardData('the logs', logs(), numbers, cvvs);
  });
});
