import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { parsePercentE4, parseReais } from '../../src/platform/money/money.js';
import { parseWithdrawalAmount } from '../../src/withdrawals/amount.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';
import { vectors } from '../support/vectors.js';

let server: TestServer;
let m: TestMerchant;
const post = (body: unknown, merchant = m) =>
  call<Record<string, unknown>>('POST', `${server.url}/api/public/cashout`, { headers: merchant.keys, body });

beforeAll(async () => {
  server = await startServer();
  m = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 100_000_000);
});
afterAll(() => server?.close());

describe('vectors.json cashoutAmounts', () => {
  const { valid, below_minimum_422, above_maximum_422, invalid_400 } = vectors.cashoutAmounts;
  for (const amount of valid) {
    it(`accepts ${JSON.stringify(amount)}`, async () => {
      const res = await post({ amount, pixKey: '52998224725' });
      expect(res.status).toBe(201);
      const cents = parseReais(String(amount))!;
      expect(res.body.amount).toBe(`${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`);
    });
  }
  for (const amount of below_minimum_422) {
    it(`refuses ${JSON.stringify(amount)} with 422 MINIMUM_VALUE`, async () => {
      const res = await post({ amount, pixKey: '52998224725' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'The minimum cashout amount is 100.00',
        errorType: 'MINIMUM_VALUE',
      });
    });
  }
  for (const amount of above_maximum_422) {
    it(`refuses ${JSON.stringify(amount)} with 422 MAXIMUM_VALUE`, async () => {
      const res = await post({ amount, pixKey: '52998224725' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'The maximum cashout amount is 100000.00',
        errorType: 'MAXIMUM_VALUE',
      });
    });
  }
  for (const amount of invalid_400) {
    it(`refuses ${JSON.stringify(amount)} with 400 shape D`, async () => {
      const res = await post({ amount, pixKey: '52998224725' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: expect.any(String), error: 'VALIDATION_ERROR' });
    });
  }
  it('parses number literals exactly (unit)', () => {
    expect(parseWithdrawalAmount(100.1, '100.10')).toEqual({ ok: true, cents: 10010 });
    expect(parseWithdrawalAmount(1000, '1e3')).toEqual({ ok: true, cents: 100000 });
    expect(parseWithdrawalAmount(0.29, '0.29')).toEqual({ ok: true, cents: 29 });
    expect(parseWithdrawalAmount(100, '100.001')).toMatchObject({ ok: false });
    expect(parseWithdrawalAmount(-0, '-0')).toMatchObject({ ok: false });
    expect(parseWithdrawalAmount('NaN', undefined)).toMatchObject({ ok: false });
    expect(parseWithdrawalAmount(' 100', undefined)).toMatchObject({ ok: false });
  });
});

describe('vectors.json pixKeys', () => {
  for (const [type, keys] of Object.entries(vectors.pixKeys.valid)) {
    for (const pixKey of keys) {
      it(`accepts ${type} ${pixKey}`, async () => {
        const res = await post({ amount: 100, pixKey, pixKeyType: type });
        expect(res.status).toBe(201);
        expect(res.body.pixKeyType).toBe(type);
      });
    }
  }
  for (const [type, keys] of Object.entries(vectors.pixKeys.invalid)) {
    for (const pixKey of keys) {
      it(`refuses ${type} ${pixKey} with 400`, async () => {
        const res = await post({ amount: 100, pixKey, pixKeyType: type });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ message: expect.stringContaining('pixKey'), error: 'VALIDATION_ERROR' });
      });
    }
  }
  it('defaults pixKeyType to CPF', async () => {
    const ok = await post({ amount: 100, pixKey: '11144477735' });
    expect(ok.body.pixKeyType).toBe('CPF');
    const bad = await post({ amount: 100, pixKey: 'pagamentos@example.com.br' });
    expect(bad.body).toEqual({ message: 'pixKey is not a valid CPF', error: 'VALIDATION_ERROR' });
  });
});

describe('vectors.json withdrawalFees (half-up to the cent)', () => {
  for (const v of vectors.withdrawalFees) {
    it(`${v.amount} with ${v.feeFixed} + ${v.feePercent}%`, async () => {
      const merchant = await createMerchant(server);
      const { db } = server.runtime.platform;
      await updateAccount(db, merchant.accountId, {
        cashoutFeeFixed: parseReais(v.feeFixed)!,
        cashoutFeePercentE4: parsePercentE4(v.feePercent)!,
      });
      await fundMerchant(db, merchant.accountId, parseReais(v.amount)!);
      const res = await post({ amount: Number(v.amount), pixKey: '52998224725' }, merchant);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        amount: v.amount,
        fees: v.expected.fees,
        netAmount: v.expected.netAmount,
      });
      const balance = await call('GET', `${server.url}/api/public/balance`, { headers: merchant.keys });
      expect(balance.body).toEqual({
        available: 0,
        blocked: parseReais(v.amount),
        total: parseReais(v.amount),
        receivable: 0,
      });
    });
  }
});
