import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../../../src/ledger/ledger.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { expireOverdueApprovals } from '../../../src/withdrawals/approval/decide.js';
import { lookup, type Withdrawal, waitForStatus, withdrawalEvents } from '../../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { Mailbox } from '../../support/mailbox.js';
import { startServer, type TestServer } from '../../support/server.js';
import { addTeamUser, type TeamUser } from '../../support/team.js';

let server: TestServer;
let mailbox: Mailbox;
let owner: TestMerchant;
let finance: TeamUser;
let viewer: TeamUser;

const db = () => server.runtime.platform.db;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  owner = await createMerchant(server, 'Loja Aprovações');
  finance = await addTeamUser(server.url, owner, mailbox, 'finance');
  viewer = await addTeamUser(server.url, owner, mailbox, 'viewer');
  await fundMerchant(db(), owner.accountId, 10_000_000);
  const rule = await call('PUT', `${server.url}/api/settings/withdrawal-approval`, {
    headers: owner.panel,
    body: { thresholdCents: 100_000 },
  });
  expect(rule.status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

async function panelWithdrawal(user: { panel: Record<string, string> }, password: string, amount: number) {
  const res = await call<Withdrawal & { approval: Record<string, unknown> | null }>(
    'POST',
    `${server.url}/api/withdrawals`,
    { headers: user.panel, body: { amount, pixKey: '52998224725', password } },
  );
  expect(res.status).toBe(201);
  return res.body;
}

async function apiWithdrawal(amount: number) {
  const res = await call<Withdrawal & { approval: Record<string, unknown> | null }>(
    'POST',
    `${server.url}/api/public/cashout`,
    { headers: owner.keys, body: { amount, pixKey: '52998224725' } },
  );
  expect(res.status).toBe(201);
  return res.body;
}

const sentToProvider = async (uuid: string) =>
  (await db().query('SELECT 1 FROM sandbox_payouts WHERE reference = $1', [uuid])).length > 0;

const decide = (
  step: 'approve' | 'decline',
  user: { panel: Record<string, string> },
  id: number,
  body: object,
) =>
  call<{ status: string; approval: Record<string, unknown>; error?: { code: string } }>(
    'POST',
    `${server.url}/api/withdrawals/${id}/${step}`,
    { headers: user.panel, body },
  );

describe('withdrawal approval', () => {
  it('the rule reads back; only owners and admins set it; finance may read it', async () => {
    const read = await call('GET', `${server.url}/api/settings/withdrawal-approval`, {
      headers: finance.panel,
    });
    expect(read.body).toEqual({ thresholdCents: 100_000 });
    const refused = await call('PUT', `${server.url}/api/settings/withdrawal-approval`, {
      headers: finance.panel,
      body: { thresholdCents: null },
    });
    expect(refused.status).toBe(403);
    const bad = await call('PUT', `${server.url}/api/settings/withdrawal-approval`, {
      headers: owner.panel,
      body: { thresholdCents: 0 },
    });
    expect(bad.status).toBe(400);
  });

  it('below the threshold: approval null, paid as usual', async () => {
    const w = await apiWithdrawal(999.99);
    expect(w.approval).toBeNull();
    await waitForStatus(server.url, owner, w.id, 'PROCESSING');
  });

  it('at the threshold: 201 PENDING awaiting, money blocked, approvers mailed, nothing sent until a second person approves', async () => {
    const before = await getBalance(db(), owner.accountId);
    const w = await apiWithdrawal(1000);
    expect(w.status).toBe('PENDING');
    expect(w.approval).toEqual({
      status: 'awaiting',
      requestedBy: `api_key:${owner.publicKey}`,
      decidedBy: null,
      decidedAt: null,
    });
    const after = await getBalance(db(), owner.accountId);
    expect(after.blocked - before.blocked).toBe(100_000);

    // the one who may approve is told; the viewer is not, nor the owner, who created the key that asked
    const mail = await mailbox.waitFor(finance.email, /aguardando aprovação/);
    expect(mail.subject).toContain('R$ 1.000,00');
    // the key by its name, the CPF masked but for its last digits
    expect(mail.text).toContain('pela integração (uma chave de API)');
    expect(mail.text).toContain('*******4725');
    expect(mail.text).not.toContain('52998224725');

    // the payout worker and its requeue sweep run meanwhile: nothing reaches the provider
    await new Promise((r) => setTimeout(r, 1500));
    expect(await sentToProvider(w.uuid)).toBe(false);
    for (const user of [viewer, owner])
      expect(mailbox.to(user.email).filter((m) => /aprovação/.test(m.subject))).toEqual([]);
    const listed = await call<{ data: { id: number }[] }>(
      'GET',
      `${server.url}/api/withdrawals?approval=awaiting`,
      {
        headers: viewer.panel,
      },
    );
    expect(listed.body.data.map((x) => x.id)).toContain(w.id);

    // a viewer may not decide; nor may the owner approve what the key they created asked for (a second person
    // means a second person); a wrong password changes nothing
    expect((await decide('approve', viewer, w.id, { password: viewer.password })).status).toBe(403);
    const ownKey = await decide('approve', owner, w.id, { password: owner.password });
    expect(ownKey.status).toBe(403);
    expect(ownKey.text).toMatch(/you created the API key that asked for this one/);
    const wrong = await decide('approve', finance, w.id, { password: 'not-it' });
    expect(wrong.status).toBe(401);
    expect((await lookup(server.url, owner, w.id)).approval).toMatchObject({ status: 'awaiting' });

    const ok = await decide('approve', finance, w.id, { password: finance.password });
    expect(ok.status).toBe(200);
    expect(ok.body.approval).toMatchObject({ status: 'approved', decidedBy: finance.email });
    // the withdrawal changed: its updatedAt says when
    const decided = ok.body as unknown as { createdAt: string; updatedAt: string };
    expect(decided.updatedAt).not.toBe(decided.createdAt);
    await waitForStatus(server.url, owner, w.id, 'PROCESSING');
    expect(await sentToProvider(w.uuid)).toBe(true);
    const again = await decide('decline', owner, w.id, {});
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('NOT_AWAITING_APPROVAL');
  });

  it('the one who asked cannot approve it; declining returns the money and notifies withdrawal.canceled', async () => {
    const before = await getBalance(db(), owner.accountId);
    const w = await panelWithdrawal(finance, finance.password, 2500);
    expect(w.approval).toMatchObject({ status: 'awaiting', requestedBy: finance.email });
    expect((await decide('approve', finance, w.id, { password: finance.password })).status).toBe(403);
    const declined = await decide('decline', owner, w.id, { password: owner.password });
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({
      status: 'CANCELLED',
      approval: { status: 'declined', decidedBy: owner.email },
    });
    expect(await getBalance(db(), owner.accountId)).toEqual(before);
    expect((await withdrawalEvents(db(), w.id)).map((e) => e.event_type)).toContain('withdrawal.canceled');
    expect(await sentToProvider(w.uuid)).toBe(false);
    const audit = await call<{ data: { action: string; actor: { label: string } }[] }>(
      'GET',
      `${server.url}/api/audit-log?limit=100`,
      { headers: owner.panel },
    );
    expect(audit.body.data.find((e) => e.action === 'withdrawal.declined')?.actor.label).toBe(owner.email);
  });

  it("the merchant's key cancelling one in the sandbox is who declined it (not an operator), in the audit log too", async () => {
    const w = await apiWithdrawal(1500);
    const cancelled = await call<{ status: string; approval: Record<string, unknown> }>(
      'POST',
      `${server.url}/api/sandbox/cashouts/${w.uuid}/cancel`,
      { headers: owner.keys },
    );
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({
      status: 'CANCELLED',
      approval: { status: 'declined', decidedBy: `api_key:${owner.publicKey}` },
    });
    const audit = await call<{ data: { action: string; target: string; actor: { type: string } }[] }>(
      'GET',
      `${server.url}/api/audit-log?limit=100`,
      { headers: owner.panel },
    );
    expect(
      audit.body.data.find((e) => e.action === 'withdrawal.declined' && e.target === `withdrawal:${w.uuid}`)
        ?.actor.type,
    ).toBe('api_key');
  });

  it('the one who asked may take the request back: declining their own returns the money', async () => {
    const before = await getBalance(db(), owner.accountId);
    const w = await panelWithdrawal(finance, finance.password, 1500);
    expect(w.approval).toMatchObject({ status: 'awaiting', requestedBy: finance.email });
    const wrong = await decide('decline', finance, w.id, { password: 'not-it' });
    expect(wrong.status).toBe(401);
    const declined = await decide('decline', finance, w.id, { password: finance.password });
    expect(declined.status, declined.text).toBe(200);
    expect(declined.body).toMatchObject({
      status: 'CANCELLED',
      approval: { status: 'declined', decidedBy: finance.email },
    });
    expect(await getBalance(db(), owner.accountId)).toEqual(before);
    expect(await sentToProvider(w.uuid)).toBe(false);
  });

  it('approve racing decline racing expiry: exactly one wins, every time', async () => {
    for (let round = 0; round < 8; round++) {
      const w = await apiWithdrawal(1500);
      await db().query("UPDATE withdrawals SET created_at = now() - interval '73 hours' WHERE id = $1", [
        w.id,
      ]);
      const [a, d, expired] = await Promise.all([
        decide('approve', finance, w.id, { password: finance.password }),
        decide('decline', owner, w.id, {}),
        expireOverdueApprovals(db(), server.runtime.platform.queue),
      ]);
      const wins = [a.status === 200, d.status === 200, expired > 0].filter(Boolean).length;
      expect({ round, wins, a: a.status, d: d.status, expired }).toMatchObject({ wins: 1 });
      for (const res of [a, d])
        if (res.status !== 200) expect(res.body.error?.code).toBe('NOT_AWAITING_APPROVAL');
      const final = await lookup(server.url, owner, w.id);
      const approval = (final as unknown as { approval: { status: string } }).approval.status;
      if (a.status === 200) expect(approval).toBe('approved');
      else {
        expect(approval).toBe(d.status === 200 ? 'declined' : 'expired');
        expect(final.status).toBe('CANCELLED');
        expect(await sentToProvider(w.uuid)).toBe(false);
      }
    }
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('one still awaiting after 72 hours is declined as expired, its money back', async () => {
    const before = await getBalance(db(), owner.accountId);
    const w = await apiWithdrawal(1200);
    await db().query(
      "UPDATE withdrawals SET created_at = now() - interval '72 hours 1 minute' WHERE id = $1",
      [w.id],
    );
    expect(await expireOverdueApprovals(db(), server.runtime.platform.queue)).toBeGreaterThanOrEqual(1);
    const final = await lookup(server.url, owner, w.id);
    expect(final).toMatchObject({ status: 'CANCELLED', approval: { status: 'expired', decidedBy: null } });
    expect(await getBalance(db(), owner.accountId)).toEqual(before);
  });
});
