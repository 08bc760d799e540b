import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { createCashout, lookup, waitForStatus, withdrawalEvents } from '../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let m: TestMerchant;
const result = (id: string | number, body: unknown, merchant = m) =>
  call<Record<string, unknown>>('POST', `${server.url}/api/sandbox/cashouts/${id}/result`, {
    headers: merchant.keys,
    body,
  });
const balance = async () =>
  (await call<Record<string, number>>('GET', `${server.url}/api/public/balance`, { headers: m.keys })).body;

beforeAll(async () => {
  server = await startServer();
  m = await createMerchant(server, 'Lifecycle Merchant');
  await updateAccount(server.runtime.platform.db, m.accountId, {
    cashoutFeeFixed: 150,
    cashoutFeePercentE4: 12000,
  });
  await fundMerchant(server.runtime.platform.db, m.accountId, 1_000_000);
});
afterAll(() => server?.close());

describe('PENDING → PROCESSING → COMPLETED', () => {
  it('is submitted by the payout worker, completed by the sandbox result, and notified each step', async () => {
    const { db } = server.runtime.platform;
    const created = await createCashout(server.url, m, 150);
    const processing = await waitForStatus(server.url, m, created.uuid, 'PROCESSING');
    expect(await balance()).toEqual({ available: 985_000, blocked: 15_000, total: 1_000_000, receivable: 0 });

    const done = await result(created.uuid, { result: 'COMPLETED' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ uuid: created.uuid, status: 'COMPLETED', netAmount: '146.70' });
    expect(await balance()).toEqual({ available: 985_000, blocked: 0, total: 985_000, receivable: 0 });

    const events = await withdrawalEvents(db, created.id);
    expect(events.map((e) => e.event_type)).toEqual(['withdrawal.pending', 'withdrawal.completed']);
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
    const [payout] = await db.query<{ external_id: string }>(
      'SELECT external_id FROM sandbox_payouts WHERE reference = $1',
      [created.uuid],
    );
    const pendingBody = events[0]!.webhook_body;
    const completedBody = JSON.parse(events[1]!.webhook_body);
    expect(JSON.parse(pendingBody)).toEqual({
      id: created.id,
      uuid: created.uuid,
      userId: m.accountId,
      amount: '150.00',
      pixKey: '52998224725',
      pixKeyType: 'CPF',
      status: 'PROCESSING',
      externalId: payout!.external_id,
      createdAt: created.createdAt,
      updatedAt: processing.updatedAt,
      processedAt: null,
      user: { id: m.accountId, name: 'Lifecycle Merchant', email: m.email },
      type: 'WITHDRAWAL',
      eventType: 'withdrawal.pending',
    });
    expect(Object.keys(JSON.parse(pendingBody))).toEqual([
      'id',
      'uuid',
      'userId',
      'amount',
      'pixKey',
      'pixKeyType',
      'status',
      'externalId',
      'createdAt',
      'updatedAt',
      'processedAt',
      'user',
      'type',
      'eventType',
    ]);
    expect(completedBody).toMatchObject({
      status: 'COMPLETED',
      updatedAt: done.body.updatedAt,
      processedAt: done.body.updatedAt,
    });

    // a repeated or late result changes nothing and notifies nothing
    const again = await result(created.id, { result: 'REJECTED' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: { code: 'CONFLICT', message: expect.any(String) } });
    expect(await balance()).toEqual({ available: 985_000, blocked: 0, total: 985_000, receivable: 0 });
    expect(await withdrawalEvents(db, created.id)).toHaveLength(2);
    expect((await verifyLedger(db)).ok).toBe(true);
  });
});

describe('PROCESSING → FAILED (provider rejection)', () => {
  it('returns the funds to available; the resource says FAILED, the notification REJECTED', async () => {
    const { db } = server.runtime.platform;
    const before = await balance();
    const created = await createCashout(server.url, m, 200);
    await waitForStatus(server.url, m, created.id, 'PROCESSING');
    const res = await result(created.id, { result: 'REJECTED' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('FAILED');
    expect(await balance()).toEqual(before);
    const events = await withdrawalEvents(db, created.id);
    expect(events.map((e) => e.event_type)).toEqual(['withdrawal.pending', 'withdrawal.rejected']);
    expect(JSON.parse(events[1]!.webhook_body)).toMatchObject({ status: 'REJECTED', type: 'WITHDRAWAL' });
    expect((await lookup(server.url, m, created.uuid)).status).toBe('FAILED');
  });
});

describe('POST /api/sandbox/cashouts/{id}/result errors (shape A)', () => {
  it('401 without keys, 404 for another account or unknown id, 400 for a bad result', async () => {
    const created = await createCashout(server.url, m, 100);
    await waitForStatus(server.url, m, created.id, 'PROCESSING');
    const none = await call('POST', `${server.url}/api/sandbox/cashouts/${created.uuid}/result`, {
      body: { result: 'COMPLETED' },
    });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: expect.any(String) },
    });
    const other = await createMerchant(server);
    for (const id of [created.uuid, created.id, '424242', 'junk']) {
      const res = await result(id, { result: 'COMPLETED' }, other);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
    const bad = await result(created.uuid, { result: 'PAID' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    expect((await lookup(server.url, m, created.uuid)).status).toBe('PROCESSING');
  });
});

describe('POST /api/providers/sandbox/payouts/callback', () => {
  it('refuses a bad signature and changes nothing; applies a signed one once', async () => {
    const { db } = server.runtime.platform;
    const created = await createCashout(server.url, m, 100);
    await waitForStatus(server.url, m, created.id, 'PROCESSING');
    const before = await balance();
    const { SandboxPayoutProvider } = await import('../../src/withdrawals/payouts/sandbox-provider.js');
    const provider = new SandboxPayoutProvider(db);
    const signed = await provider.signedCallback(created.uuid, 'COMPLETED');
    const cb = `${server.url}/api/providers/sandbox/payouts/callback`;

    const forged = await call('POST', cb, {
      headers: { ...signed.headers, 'x-sandbox-signature': `sha256=${'0'.repeat(64)}` },
      body: signed.body,
    });
    expect(forged.status).toBe(401);
    const tampered = await call('POST', cb, {
      headers: signed.headers,
      body: signed.body.replace('COMPLETED', 'REJECTED'),
    });
    expect(tampered.status).toBe(401);
    expect(tampered.body).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: 'Invalid provider signature' },
    });
    const unsigned = await call('POST', cb, { body: signed.body });
    expect(unsigned.status).toBe(401);
    const stale = await provider.sign('1000000000', signed.body);
    const old = await call('POST', cb, {
      headers: { ...signed.headers, 'x-sandbox-timestamp': '1000000000', 'x-sandbox-signature': stale },
      body: signed.body,
    });
    expect(old.status).toBe(401);
    expect((await lookup(server.url, m, created.uuid)).status).toBe('PROCESSING');
    expect(await balance()).toEqual(before);
    expect(await withdrawalEvents(db, created.id)).toHaveLength(1);

    const ok = await call('POST', cb, { headers: signed.headers, body: signed.body });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ received: true, status: 'COMPLETED', changed: true });
    const repeat = await call('POST', cb, { headers: signed.headers, body: signed.body });
    expect(repeat.body).toEqual({ received: true, status: 'COMPLETED', changed: false });
    const late = await provider.signedCallback(created.uuid, 'REJECTED');
    const lateRes = await call('POST', cb, { headers: late.headers, body: late.body });
    expect(lateRes.body).toEqual({ received: true, status: 'COMPLETED', changed: false });
    expect(await withdrawalEvents(db, created.id)).toHaveLength(2);
    expect((await verifyLedger(db)).ok).toBe(true);
  });
});

describe('SANDBOX=off', () => {
  it('has no sandbox result route', async () => {
    const off = await startServer({ env: { SANDBOX: 'off' }, workers: false });
    try {
      const merchant = await createMerchant(off);
      const res = await call('POST', `${off.url}/api/sandbox/cashouts/1/result`, {
        headers: merchant.keys,
        body: { result: 'COMPLETED' },
      });
      expect(res.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
