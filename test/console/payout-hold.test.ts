import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCashout, lookup, waitForStatus } from '../support/cashouts.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;
let risk: TestOperator;
let support: TestOperator;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer();
  receiver = await startReceiver();
  risk = await createOperator(server, 'risk');
  support = await createOperator(server, 'support');
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

const ops = (o: TestOperator, path: string, body: unknown = {}) =>
  call<Record<string, unknown>>('POST', `${server.url}${path}`, { headers: o.ops, body });

async function balanceOf(accountId: number) {
  const rows = await server.runtime.platform.db.query<{ bucket: string; balance: number }>(
    'SELECT bucket, balance FROM ledger_accounts WHERE account_id = $1',
    [accountId],
  );
  return Object.fromEntries(rows.map((r) => [r.bucket, Number(r.balance)]));
}

async function providerOrders(uuid: string): Promise<number> {
  const [row] = await server.runtime.platform.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM sandbox_payouts WHERE reference = $1',
    [uuid],
  );
  return row?.n ?? 0;
}

describe('payout holds', () => {
  it('keeps a held account’s withdrawals in AWAITING_REVIEW, never sent; release sends, cancel returns the money', async () => {
    const m = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    await createWebhook(server, m, receiver.url, ['withdrawal.canceled']);

    const held = await ops(risk, `/api/ops/accounts/${m.accountId}/payout-hold`, {
      reason: 'análise de risco',
    });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({
      payoutHold: true,
      payoutHoldReason: 'análise de risco',
      status: 'active',
    });

    const a = await createCashout(server.url, m, 150);
    const b = await createCashout(server.url, m, 250);
    expect(a.status).toBe('AWAITING_REVIEW');
    expect(b.status).toBe('AWAITING_REVIEW');
    expect(await balanceOf(m.accountId)).toMatchObject({ available: 60_000, blocked: 40_000 });
    // a while later still waiting, and the provider never saw them
    await new Promise((r) => setTimeout(r, 1500));
    expect((await lookup(server.url, m, a.uuid)).status).toBe('AWAITING_REVIEW');
    expect(await providerOrders(a.uuid)).toBe(0);

    const queue = await call<{ data: { uuid: string; accountId: number }[] }>(
      'GET',
      `${server.url}/api/ops/withdrawals?queue=held&accountId=${m.accountId}`,
      { headers: support.ops },
    );
    expect(queue.body.data.map((w) => w.uuid)).toEqual([a.uuid, b.uuid]);

    // support reads, but may not decide
    expect((await ops(support, `/api/ops/withdrawals/${a.id}/release`)).status).toBe(403);

    const released = await ops(risk, `/api/ops/withdrawals/${a.id}/release`);
    expect(released.status).toBe(200);
    await waitForStatus(server.url, m, a.uuid, 'PROCESSING');
    expect(await providerOrders(a.uuid)).toBe(1);

    const cancelled = await ops(risk, `/api/ops/withdrawals/${b.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(await balanceOf(m.accountId)).toMatchObject({ available: 85_000, blocked: 15_000 });
    const told = await waitUntil(() =>
      receiver.received.find((r) => (JSON.parse(r.body.toString()) as { uuid?: string }).uuid === b.uuid),
    );
    expect(JSON.parse(told.body.toString())).toMatchObject({ status: 'CANCELLED' });

    // decided once: a second decision on either is a conflict
    expect((await ops(risk, `/api/ops/withdrawals/${b.id}/release`)).status).toBe(409);
    expect((await ops(risk, `/api/ops/withdrawals/${a.id}/cancel`)).status).toBe(409);
  });

  it('a hold placed while withdrawals wait unsent catches them; payout-release lets every held one go', async () => {
    const m = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    // a withdrawal waiting for a second person's approval is PENDING and unsent, for as long as it waits
    await needsApproval(m.accountId);
    const waiting = await createCashout(server.url, m, 150);
    expect(waiting.status).toBe('PENDING');
    await ops(risk, `/api/ops/accounts/${m.accountId}/payout-hold`, { reason: 'documentos' });
    expect((await lookup(server.url, m, waiting.uuid)).status).toBe('AWAITING_REVIEW');

    await server.runtime.platform.db.query('DELETE FROM withdrawal_approval_rules WHERE account_id = $1', [
      m.accountId,
    ]);
    const later = await createCashout(server.url, m, 130);
    expect(later.status).toBe('AWAITING_REVIEW');
    const released = await ops(risk, `/api/ops/accounts/${m.accountId}/payout-release`);
    expect(released.body.payoutHold).toBe(false);
    await waitForStatus(server.url, m, later.uuid, 'PROCESSING');
    // released, the first still needs its approval: back to PENDING, waiting for it, not sent
    const first = await lookup(server.url, m, waiting.uuid);
    expect(first.status).toBe('PENDING');
    expect(await providerOrders(waiting.uuid)).toBe(0);
    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/payout-release`)).status).toBe(409);
  });

  it('suspending holds the withdrawals not yet sent; reactivating lets them go', async () => {
    const m = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    await needsApproval(m.accountId);
    const w = await createCashout(server.url, m, 120);
    await ops(risk, `/api/ops/accounts/${m.accountId}/suspend`, { reason: 'fraude' });
    expect((await lookup(server.url, m, w.uuid)).status).toBe('AWAITING_REVIEW');
    // an approver cannot send it while it waits for review
    await server.runtime.platform.db.query(
      `UPDATE withdrawals SET approval_status = 'approved' WHERE uuid = $1`,
      [w.uuid],
    );
    await ops(risk, `/api/ops/accounts/${m.accountId}/reactivate`);
    await waitForStatus(server.url, m, w.uuid, 'PROCESSING');
  });
});

async function needsApproval(accountId: number): Promise<void> {
  await server.runtime.platform.db.query(
    'INSERT INTO withdrawal_approval_rules (account_id, threshold_cents) VALUES ($1, 1)',
    [accountId],
  );
}
