import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../../src/devpsp/server.js';
import { getBalance } from '../../../src/ledger/ledger.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { EfiPayoutProvider } from '../../../src/withdrawals/payouts/efi-provider.js';
import { settleOverdue, submitPayouts } from '../../../src/withdrawals/payouts/payouts.js';
import { type PayoutProviders, payoutProviders } from '../../../src/withdrawals/payouts/providers.js';
import { createCashout, lookup, type Withdrawal, withdrawalEvents } from '../../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { fundMerchant } from '../../support/ledger.js';
import { freePort } from '../../support/ports.js';
import { startPsp } from '../../support/psp.js';
import { startServer, type TestServer } from '../../support/server.js';

// Workers off: the test is the worker, and decides when a withdrawal has waited 30 minutes.
let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
let providers: PayoutProviders;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  const started = await startPsp();
  psp = started.psp;
  server = await startServer({
    workers: false,
    env: { ...started.env(await freePort()), PAYOUT_PROVIDER: 'efi', PAYOUT_TIMEOUT_MS: '1000' },
  });
  providers = payoutProviders(db(), server.runtime.platform.config);
  merchant = await createMerchant(server);
  await fundMerchant(db(), merchant.accountId, 1_000_000);
});
afterAll(async () => {
  await providers?.close();
  await server?.close();
  await psp?.close();
});

/** A cashout submitted to `provider`: PROCESSING there. */
async function processing(provider: 'efi' | 'sandbox', amount = 100): Promise<Withdrawal> {
  const w = await createCashout(server.url, merchant, amount);
  await submitPayouts(db(), providers.byName(provider)!, [w.id]);
  expect((await lookup(server.url, merchant, w.uuid)).status).toBe('PROCESSING');
  return w;
}
const waited30Minutes = (w: Withdrawal) =>
  db().query(`UPDATE withdrawals SET updated_at = now() - interval '31 minutes' WHERE id = $1`, [w.id]);
const overdue = () => settleOverdue(db(), (name) => providers.byName(name));
const events = async (w: Withdrawal) => (await withdrawalEvents(db(), w.id)).map((e) => e.event_type);
const putsOf = (w: Withdrawal) =>
  psp.state.log.filter((l) => l === `PUT /v3/gn/pix/${EfiPayoutProvider.sendId(w.uuid)}`).length;

describe('a withdrawal PROCESSING for over 30 minutes is read back from its provider', () => {
  it('Efí (local PSP): paid there, its callback lost → COMPLETED from the read-back, sent once', async () => {
    const w = await processing('efi');
    psp.settleSend(EfiPayoutProvider.sendId(w.uuid), 'REALIZADO'); // Efí's callback for it never arrives
    expect(await overdue()).toBe(0); // not overdue yet
    await waited30Minutes(w);
    expect(await overdue()).toBe(1);
    expect((await lookup(server.url, merchant, w.uuid)).status).toBe('COMPLETED');
    expect(await overdue()).toBe(0);
    expect(putsOf(w)).toBe(1);
    expect(await events(w)).toEqual(['withdrawal.pending', 'withdrawal.completed']);
  });

  it('Efí (local PSP): NAO_REALIZADO there → FAILED, the money back to available, sent once', async () => {
    const before = await getBalance(db(), merchant.accountId);
    const w = await processing('efi', 150);
    psp.settleSend(EfiPayoutProvider.sendId(w.uuid), 'NAO_REALIZADO');
    await waited30Minutes(w);
    expect(await overdue()).toBe(1);
    expect((await lookup(server.url, merchant, w.uuid)).status).toBe('FAILED');
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
    expect(putsOf(w)).toBe(1);
  });

  it('Efí (local PSP): still in progress there → stays PROCESSING, nothing sent again', async () => {
    const w = await processing('efi', 130);
    await waited30Minutes(w);
    expect(await overdue()).toBe(0);
    expect((await lookup(server.url, merchant, w.uuid)).status).toBe('PROCESSING');
    expect(putsOf(w)).toBe(1);
  });

  it('sandbox: the provider paid it and its callback was lost → COMPLETED once, submitted once', async () => {
    const w = await processing('sandbox');
    await providers.sandbox.decide(w.uuid, 'COMPLETED'); // the signed callback it returns is never delivered
    await waited30Minutes(w);
    expect(await overdue()).toBe(1);
    expect((await lookup(server.url, merchant, w.uuid)).status).toBe('COMPLETED');
    expect(await overdue()).toBe(0);
    const [row] = await db().query<{ submissions: number }>(
      'SELECT submissions FROM sandbox_payouts WHERE reference = $1',
      [w.uuid],
    );
    expect(row!.submissions).toBe(1);
    expect(await events(w)).toEqual(['withdrawal.pending', 'withdrawal.completed']);
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});
