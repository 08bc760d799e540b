import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../../src/accounts/accounts.js';
import { setApiWithdrawals } from '../../../src/accounts/settings.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let m: TestMerchant;
type Body = Record<string, unknown>;
const url = () => `${server.url}/api/public/cashout`;
const send = (u: string, headers: Record<string, string>, body: unknown) =>
  call<Body>('POST', u, { headers, body });
const callGet = (u: string, headers: Record<string, string>) => call<Body>('GET', u, { headers });
const post = (body: unknown, headers: Record<string, string> = m.keys) => send(url(), headers, body);
const balance = async (merchant = m) =>
  (await callGet(`${server.url}/api/public/balance`, merchant.keys)).body as Record<string, number>;

beforeAll(async () => {
  server = await startServer();
  m = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 50_000_000);
});
afterAll(() => server?.close());

describe('POST /api/public/cashout: success', () => {
  it('answers 201 with the creation form (no updatedAt) and moves the amount available → blocked', async () => {
    const before = await balance();
    const res = await post({ amount: 150, pixKey: '52998224725' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      amount: '150.00',
      netAmount: '150.00',
      pixKey: '52998224725',
      pixKeyType: 'CPF',
      status: 'PENDING',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      fees: { fixed: '0.00', variable: '0.00', total: '0.00' },
      // decisions.md, Withdrawal approval: null when the account's rule does not ask for one
      approval: null,
    });
    expect(Object.keys(res.body)).toEqual([
      'id',
      'uuid',
      'amount',
      'netAmount',
      'pixKey',
      'pixKeyType',
      'status',
      'createdAt',
      'fees',
      'approval',
    ]);
    const after = await balance();
    expect(after.available).toBe(before.available! - 15000);
    expect(after.blocked).toBe(before.blocked! + 15000);
    expect(after.total).toBe(before.total);
  });

  it('accepts a string holding a plain decimal and strips CPF punctuation', async () => {
    const res = await post({ amount: '100.50', pixKey: '529.982.247-25', pixKeyType: 'CPF' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: '100.50', pixKey: '52998224725', pixKeyType: 'CPF' });
  });

  const raw = (text: string) =>
    send(
      url(),
      { ...m.keys, 'content-type': 'application/json' },
      `{"amount": ${text}, "pixKey": "52998224725"}`,
    );

  it('reads the amount from the JSON text, never through a float', async () => {
    expect((await raw('100.10')).body).toMatchObject({ amount: '100.10' });
    const charset = await send(
      url(),
      { ...m.keys, 'content-type': 'application/json; charset=utf-8' },
      '{"amount": 100.20, "pixKey": "52998224725"}',
    );
    expect(charset.body).toMatchObject({ amount: '100.20' });
    expect((await raw('100.120')).body).toMatchObject({ amount: '100.12' });
    expect((await raw('1.5e2')).body).toMatchObject({ amount: '150.00' });
    const tooPrecise = await raw('100.000000000000000001');
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.body).toEqual({
      message: 'amount must have at most two decimal places',
      error: 'VALIDATION_ERROR',
    });
    expect((await raw('1e400')).body).toMatchObject({ error: 'VALIDATION_ERROR' }); // not a finite number
    expect((await raw('100001e0')).body).toEqual({
      message: 'The maximum cashout amount is 100000.00',
      errorType: 'MAXIMUM_VALUE',
    });
  });

  it('reads a very long number literal whole (zero stays zero, not its tail)', async () => {
    const zero = await raw(`0.${'0'.repeat(500)}15000`);
    expect(zero.status, zero.text).toBe(400);
    expect(zero.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    const longExponent = await raw(`1e+${'0'.repeat(500)}4`);
    expect(longExponent.body).toMatchObject({ amount: '10000.00' });
  });
});

describe('POST /api/public/cashout: 400 (shape D)', () => {
  const cases: [string, unknown, string][] = [
    ['missing amount', { pixKey: '52998224725' }, "Invalid body: must have required property 'amount'"],
    ['missing pixKey', { amount: 150 }, "Invalid body: must have required property 'pixKey'"],
    ['zero', { amount: 0, pixKey: '52998224725' }, 'amount must be greater than zero'],
    ['negative', { amount: -5, pixKey: '52998224725' }, 'amount must be greater than zero'],
    [
      'three decimals',
      { amount: 100.123, pixKey: '52998224725' },
      'amount must have at most two decimal places',
    ],
    ['text', { amount: 'abc', pixKey: '52998224725' }, 'amount must be a valid number greater than zero'],
    [
      'string with three decimals, even zero ones',
      { amount: '100.100', pixKey: '52998224725' },
      'amount must have at most two decimal places',
    ],
    [
      'exponent string',
      { amount: '1e3', pixKey: '52998224725' },
      'amount must be a valid number greater than zero',
    ],
    ['short key', { amount: 150, pixKey: '1234567' }, 'pixKey must have 8 to 77 characters'],
    [
      'long key',
      { amount: 150, pixKey: `${'a'.repeat(70)}@ex.com.br` },
      'pixKey must have 8 to 77 characters',
    ],
    ['bad CPF', { amount: 150, pixKey: '52998224726' }, 'pixKey is not a valid CPF'],
    [
      'bad type',
      { amount: 150, pixKey: '52998224725', pixKeyType: 'IBAN' },
      'pixKeyType must be one of CPF, CNPJ, EMAIL, PHONE, RANDOM',
    ],
  ];
  for (const [name, body, message] of cases) {
    it(name, async () => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message, error: 'VALIDATION_ERROR' });
    });
  }

  it('refuses a body that is not JSON', async () => {
    const res = await send(url(), { ...m.keys, 'content-type': 'application/json' }, '{"amount": 1');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Body is not valid JSON', error: 'VALIDATION_ERROR' });
  });

  it('refuses null and booleans with shape D', async () => {
    for (const amount of [null, true]) {
      const res = await post({ amount, pixKey: '52998224725' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: expect.any(String), error: 'VALIDATION_ERROR' });
    }
  });

  it('writes nothing on a refused request', async () => {
    const before = await balance();
    await post({ amount: 100.123, pixKey: '52998224725' });
    expect(await balance()).toEqual(before);
  });
});

describe('POST /api/public/cashout: 401, 403, 422', () => {
  it('401 in shape D without or with wrong keys', async () => {
    const none = await post({ amount: 150, pixKey: '52998224725' }, {});
    expect(none.status).toBe(401);
    expect(none.body).toEqual({
      message: 'Both X-Api-Public-Key and X-Api-Private-Key headers are required',
      error: 'UNAUTHORIZED',
    });
    const wrong = await post(
      { amount: 150, pixKey: '52998224725' },
      { 'x-api-public-key': m.publicKey, 'x-api-private-key': 'sk_wrong' },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'Invalid API keys', error: 'UNAUTHORIZED' });
    const lookup = await callGet(`${url()}/1`, {});
    expect(lookup.status).toBe(401);
    expect(lookup.body).toEqual({ message: expect.any(String), error: 'UNAUTHORIZED' });
  });

  it('403 IP_NOT_ALLOWED in shape B when the key has an allow-list', async () => {
    const other = await createMerchant(server);
    const saved = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: other.panel,
      body: { ips: ['10.9.8.7'] },
    });
    expect(saved.status).toBe(200);
    const res = await post({ amount: 150, pixKey: '52998224725' }, other.keys);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: expect.stringContaining('not in'), code: 'IP_NOT_ALLOWED' });
    const lookup = await callGet(`${url()}/1`, other.keys);
    expect(lookup.status).toBe(403);
    expect(lookup.body).toMatchObject({ code: 'IP_NOT_ALLOWED' });
  });

  it('403 API_WITHDRAWAL_DISABLED_GLOBALLY when the operator switch is off, effective at once', async () => {
    const { db } = server.runtime.platform;
    await setApiWithdrawals(db, false);
    try {
      const res = await post({ amount: 150, pixKey: '52998224725' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: 'API withdrawals are disabled',
        errorType: 'API_WITHDRAWAL_DISABLED_GLOBALLY',
      });
    } finally {
      await setApiWithdrawals(db, true);
    }
    expect((await post({ amount: 150, pixKey: '52998224725' })).status).toBe(201);
  });

  it("403 API_WITHDRAWAL_DISABLED_GLOBALLY when the account's API cashout is off", async () => {
    const other = await createMerchant(server);
    await updateAccount(server.runtime.platform.db, other.accountId, { apiCashout: false });
    const res = await post({ amount: 150, pixKey: '52998224725' }, other.keys);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: 'API withdrawals are disabled for this user',
      errorType: 'API_WITHDRAWAL_DISABLED_GLOBALLY',
    });
  });

  it('403 TRANSFER_NOT_ALLOWED when the account transfers are off (checked before the minimum)', async () => {
    const other = await createMerchant(server);
    await updateAccount(server.runtime.platform.db, other.accountId, { transfers: false });
    for (const amount of [150, 50]) {
      const res = await post({ amount, pixKey: '52998224725' }, other.keys);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: 'Transfers are not allowed for this user',
        errorType: 'TRANSFER_NOT_ALLOWED',
      });
    }
  });

  it('422 GENERAL_ERROR in shape C when the fees take the whole amount, and nothing is written', async () => {
    const other = await createMerchant(server);
    const { db } = server.runtime.platform;
    await updateAccount(db, other.accountId, { cashoutFeeFixed: 20000 });
    const res = await post({ amount: 150, pixKey: '52998224725' }, other.keys);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The amount does not cover the cashout fees',
      errorType: 'GENERAL_ERROR',
    });
    const [{ n }] = (await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
      [other.accountId],
    )) as [{ n: number }];
    expect(n).toBe(0);
  });

  it('422 MINIMUM_VALUE, MAXIMUM_VALUE and INSUFFICIENT_BALANCE in shape C', async () => {
    expect((await post({ amount: 99.99, pixKey: '52998224725' })).body).toEqual({
      message: 'The minimum cashout amount is 100.00',
      errorType: 'MINIMUM_VALUE',
    });
    expect((await post({ amount: 100000.01, pixKey: '52998224725' })).body).toEqual({
      message: 'The maximum cashout amount is 100000.00',
      errorType: 'MAXIMUM_VALUE',
    });
    const poor = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, poor.accountId, 14999);
    const res = await post({ amount: 150, pixKey: '52998224725' }, poor.keys);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Insufficient available balance',
      errorType: 'INSUFFICIENT_BALANCE',
    });
    expect(await balance(poor)).toEqual({ available: 14999, blocked: 0, total: 14999, receivable: 0 });
  });
});

describe('GET /api/public/cashout/{id}', () => {
  it('finds a withdrawal by uuid and by numeric id, with updatedAt', async () => {
    const created = await post({ amount: 123.45, pixKey: 'pagamentos@example.com.br', pixKeyType: 'EMAIL' });
    for (const id of [created.body.uuid, created.body.id]) {
      const res = await callGet(`${url()}/${id}`, m.keys);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: created.body.id,
        uuid: created.body.uuid,
        amount: '123.45',
        pixKeyType: 'EMAIL',
        createdAt: created.body.createdAt,
        updatedAt: expect.any(String),
      });
      expect(Object.keys(res.body)).toEqual([
        'id',
        'uuid',
        'amount',
        'netAmount',
        'pixKey',
        'pixKeyType',
        'status',
        'createdAt',
        'updatedAt',
        'fees',
        'approval',
      ]);
    }
  });

  it("404 in shape D for another account's withdrawal, an unknown one, or a malformed id", async () => {
    const created = await post({ amount: 150, pixKey: '52998224725' });
    const other = await createMerchant(server);
    for (const id of [
      created.body.uuid,
      created.body.id,
      '00000000-0000-4000-8000-000000000000',
      '999999',
      'nope',
    ]) {
      const res = await callGet(`${url()}/${id}`, other.keys);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Withdrawal not found', error: 'NOT_FOUND' });
    }
  });
});

describe('OpenAPI', () => {
  it('documents the cashout routes with every response status', async () => {
    const res = await call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      'GET',
      `${server.url}/openapi.json`,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths['/api/public/cashout']!.post!.responses).sort()).toEqual([
      '201',
      '400',
      '401',
      '403',
      '409',
      '413',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(res.body.paths['/api/public/cashout/{id}']!.get!.responses).toHaveProperty('404');
    expect(res.body.paths['/api/sandbox/cashouts/{id}/result']!.post!.responses).toHaveProperty('409');
    expect(res.body.paths['/api/providers/{provider}/payouts/callback']!.post!.responses).toHaveProperty(
      '401',
    );
  });
});
