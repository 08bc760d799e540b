import { afterAll, beforeAll, expect, it } from 'vitest';
import { getBalance } from '../../../src/ledger/ledger.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { SandboxPayoutProvider } from '../../../src/withdrawals/payouts/sandbox-provider.js';
import { createCashout, lookup, withdrawalEvents } from '../../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
});
afterAll(() => server?.close());

it('a callback that overtakes the recording of the submission still settles the withdrawal once', async () => {
  const { db } = server.runtime.platform;
  const created = await createCashout(server.url, m, 100);
  // the worker claimed it and the provider accepted it, but PROCESSING is not committed yet
  await db.query('UPDATE withdrawals SET submitting_at = now() WHERE id = $1', [created.id]);
  const provider = new SandboxPayoutProvider(db);
  await provider.submit({
    reference: created.uuid,
    amountCents: 10_000,
    pixKey: '52998224725',
    pixKeyType: 'CPF',
  });
  const signed = await provider.signedCallback(created.uuid, 'COMPLETED');
  const res = await call('POST', `${server.url}/api/providers/sandbox/payouts/callback`, {
    headers: signed.headers,
    body: signed.body,
  });
  expect(res.body).toEqual({ received: true, status: 'COMPLETED', changed: true });
  expect((await lookup(server.url, m, created.uuid)).status).toBe('COMPLETED');
  // both facts commit in one transaction (same created_at): compare as a set
  expect((await withdrawalEvents(db, created.id)).map((e) => e.event_type).sort()).toEqual([
    'withdrawal.completed',
    'withdrawal.pending',
  ]);
  expect(await getBalance(db, m.accountId)).toEqual({ available: 90_000, blocked: 0, total: 90_000 });
  expect((await verifyLedger(db)).ok).toBe(true);
});

it('a callback about an order never submitted changes nothing', async () => {
  const { db } = server.runtime.platform;
  const created = await createCashout(server.url, m, 100);
  const provider = new SandboxPayoutProvider(db);
  await provider.submit({
    reference: created.uuid,
    amountCents: 10_000,
    pixKey: '52998224725',
    pixKeyType: 'CPF',
  });
  const signed = await provider.signedCallback(created.uuid, 'REJECTED');
  const res = await call('POST', `${server.url}/api/providers/sandbox/payouts/callback`, {
    headers: signed.headers,
    body: signed.body,
  });
  expect(res.body).toEqual({ received: true, status: 'PENDING', changed: false });
  expect(await withdrawalEvents(db, created.id)).toEqual([]);
});
