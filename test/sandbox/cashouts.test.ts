import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcilePayouts } from '../../src/withdrawals/payouts/payouts.js';
import { SandboxPayoutProvider } from '../../src/withdrawals/payouts/sandbox-provider.js';
import { createCashout, lookup, waitForStatus, withdrawalEvents } from '../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';

// the sandbox's payouts complete by themselves SANDBOX_CASHOUT_DELAY_MS after they were sent
const DELAY_MS = 1500;
let server: TestServer;
let mailbox: Mailbox;
let m: TestMerchant;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const result = (id: string | number, body: unknown) =>
  call<Record<string, unknown>>('POST', `${server.url}/api/sandbox/cashouts/${id}/result`, {
    headers: m.keys,
    body,
  });
const simulate = (id: string | number, body: unknown, headers = m.panel) =>
  call<Record<string, unknown>>('POST', `${server.url}/api/withdrawals/${id}/simulate-result`, {
    headers,
    body,
  });
const facts = async (id: number) =>
  (await withdrawalEvents(server.runtime.platform.db, id)).map((e) => e.event_type);

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({
    env: { SANDBOX_CASHOUT_DELAY_MS: String(DELAY_MS), SMTP_URL: mailbox.url },
  });
  m = await createMerchant(server, 'Loja Sandbox');
  await fundMerchant(server.runtime.platform.db, m.accountId, 1_000_000);
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

describe('a sandbox withdrawal', () => {
  it('completes by itself after SANDBOX_CASHOUT_DELAY_MS, notified once', async () => {
    const created = await createCashout(server.url, m, 150);
    const processing = await waitForStatus(server.url, m, created.uuid, 'PROCESSING');
    expect(processing.status).toBe('PROCESSING');
    const done = await waitForStatus(server.url, m, created.uuid, 'COMPLETED');
    const [payout] = await server.runtime.platform.db.query<{ waited_ms: number; result: string }>(
      `SELECT (extract(epoch FROM (w.updated_at - p.created_at)) * 1000)::float8 AS waited_ms, p.result
         FROM withdrawals w JOIN sandbox_payouts p ON p.reference = w.uuid WHERE w.id = $1`,
      [created.id],
    );
    expect(payout!.result).toBe('COMPLETED');
    expect(payout!.waited_ms).toBeGreaterThanOrEqual(DELAY_MS);
    expect(done.processedAt).not.toBeNull();
    // later rounds find nothing left to do: the fact is recorded once
    await sleep(DELAY_MS);
    expect(await facts(created.id)).toEqual(['withdrawal.pending', 'withdrawal.completed']);
    // and a result afterwards is refused, changing nothing
    const late = await result(created.uuid, { result: 'REJECTED' });
    expect(late.status).toBe(409);
    expect((await lookup(server.url, m, created.uuid)).status).toBe('COMPLETED');
  });

  it('decided by the result route first keeps that result', async () => {
    const created = await createCashout(server.url, m, 120);
    await waitForStatus(server.url, m, created.uuid, 'PROCESSING');
    const rejected = await result(created.uuid, { result: 'REJECTED' });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body.status).toBe('FAILED');
    await sleep(DELAY_MS * 2);
    expect((await lookup(server.url, m, created.uuid)).status).toBe('FAILED');
    expect(await facts(created.id)).toEqual(['withdrawal.pending', 'withdrawal.rejected']);
  });

  it("is completed or refused from the panel by the result route's own code", async () => {
    const a = await createCashout(server.url, m, 110);
    const b = await createCashout(server.url, m, 105);
    await waitForStatus(server.url, m, a.uuid, 'PROCESSING');
    await waitForStatus(server.url, m, b.uuid, 'PROCESSING');
    // without the session's CSRF token: refused
    const forged = await simulate(a.id, { result: 'COMPLETED' }, { cookie: m.cookie });
    expect(forged.status).toBe(403);
    const completed = await simulate(a.id, { result: 'COMPLETED' });
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body).toMatchObject({ uuid: a.uuid, status: 'COMPLETED' });
    const refused = await simulate(b.uuid, { result: 'REJECTED' });
    expect(refused.status, refused.text).toBe(200);
    expect(refused.body.status).toBe('FAILED');
    // once decided, a second decision is a conflict
    const again = await simulate(a.id, { result: 'REJECTED' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false });
    // another account's withdrawal is not found
    const other = await createMerchant(server, 'Outra Loja');
    expect((await simulate(a.id, { result: 'COMPLETED' }, other.panel)).status).toBe(404);
    await sleep(DELAY_MS * 2);
    expect(await facts(a.id)).toEqual(['withdrawal.pending', 'withdrawal.completed']);
    expect(await facts(b.id)).toEqual(['withdrawal.pending', 'withdrawal.rejected']);
  });
});

describe('a result while the payout worker reads the provider back', () => {
  it('is answered as decided even when the read-back moved the withdrawal first', async () => {
    // the worker's read-back (every RECONCILE_EVERY_MS) may find the provider's decision between the route's
    // decision and its callback, and complete the withdrawal itself: the result was the route's all the same
    const made = [];
    for (let i = 0; i < 12; i++) made.push(await createCashout(server.url, m, 100 + i));
    for (const w of made) await waitForStatus(server.url, m, w.uuid, 'PROCESSING');
    const db = server.runtime.platform.db;
    const provider = new SandboxPayoutProvider(db);
    let racing = true;
    const readBack = (async () => {
      while (racing) await reconcilePayouts(db, provider);
    })();
    const answers = await Promise.all(
      made.map((w, i) => result(w.uuid, { result: i % 2 === 0 ? 'COMPLETED' : 'REJECTED' })),
    );
    racing = false;
    await readBack;
    for (const [i, a] of answers.entries()) {
      expect(a.status, a.text).toBe(200);
      expect(a.body.status).toBe(i % 2 === 0 ? 'COMPLETED' : 'FAILED');
    }
    for (const [i, w] of made.entries()) {
      expect(await facts(w.id)).toEqual([
        'withdrawal.pending',
        i % 2 === 0 ? 'withdrawal.completed' : 'withdrawal.rejected',
      ]);
    }
  });
});

describe('the sandbox completion after a restart', () => {
  it('is found in the database by another process: the one that sent the payout need not be the one that completes it', async () => {
    // the gateway that sends waits a day (as one stopped before its delay would); another started later completes it
    const sender = await startServer();
    const later = { server: null as TestServer | null };
    try {
      const owner = await createMerchant(sender, 'Loja Reiniciada');
      await fundMerchant(sender.runtime.platform.db, owner.accountId, 500_000);
      const created = await createCashout(sender.url, owner, 130);
      await waitForStatus(sender.url, owner, created.uuid, 'PROCESSING');
      later.server = await startServer({
        databaseUrl: sender.databaseUrl,
        env: { SANDBOX_CASHOUT_DELAY_MS: String(DELAY_MS) },
      });
      await waitForStatus(later.server.url, owner, created.uuid, 'COMPLETED');
      await sleep(DELAY_MS);
      const events = await withdrawalEvents(sender.runtime.platform.db, created.id);
      expect(events.map((e) => e.event_type)).toEqual(['withdrawal.pending', 'withdrawal.completed']);
    } finally {
      await later.server?.close();
      await sender.close();
    }
  });
});

describe('e-mails in the sandbox', () => {
  it('have subjects that start with [Teste]', async () => {
    const email = 'convidada-sandbox@example.com';
    const res = await call('POST', `${server.url}/api/users/invitations`, {
      headers: m.panel,
      body: { email, name: 'Convidada', role: 'finance' },
    });
    expect(res.status, res.text).toBe(201);
    const mail = await mailbox.waitFor(email, /Convite/);
    expect(mail.subject).toBe('[Teste] Convite para a equipe de Loja Sandbox');
  });
});
