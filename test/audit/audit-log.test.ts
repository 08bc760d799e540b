import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGateway } from '../support/cli.js';
import { createMerchant, login, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

interface Entry {
  id: number;
  at: string;
  actor: { type: string; id: number | null; label: string };
  action: string;
  target: string | null;
  ip: string | null;
  userAgent: string | null;
}

let server: TestServer;
let merchant: TestMerchant;
beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, merchant.accountId, 100_000);
});
afterAll(async () => server?.close());

async function all(m: TestMerchant): Promise<Entry[]> {
  const out: Entry[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${cursor}` : '';
    const res = await call<{ data: Entry[]; nextCursor: string | null }>(
      'GET',
      `${server.url}/api/audit-log?limit=3${q}`,
      { headers: m.panel },
    );
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

describe('GET /api/audit-log', () => {
  it('records who did what, from where, newest first, each entry once across pages', async () => {
    const ua = { 'user-agent': 'audit-test/1.0' };
    const headers = { ...merchant.panel, ...ua };
    await call('POST', `${server.url}/api/auth/login`, {
      body: { email: merchant.email, password: 'wrong' },
    });
    const key = await call<{ id: number }>('POST', `${server.url}/api/credentials`, {
      headers,
      body: { name: 'k' },
    });
    await call('PUT', `${server.url}/api/settings/allowed-ips`, { headers, body: { ips: [] } });
    const hook = await call<{ id: number }>('POST', `${server.url}/api/webhook`, {
      headers,
      body: { webhookUrl: 'https://merchant.example.com/h', events: ['*'] },
    });
    await call('PUT', `${server.url}/api/webhook/${hook.body.id}`, {
      headers,
      body: { events: ['sale.paid'] },
    });
    await call('POST', `${server.url}/api/webhook/${hook.body.id}/rotate-secret`, { headers, body: {} });
    await call('DELETE', `${server.url}/api/webhook/${hook.body.id}`, { headers });
    const cashout = await call<{ id: string }>('POST', `${server.url}/api/public/cashout`, {
      headers: { ...merchant.keys, ...ua },
      body: { amount: 150, pixKey: '52998224725' },
    });
    expect(cashout.status, cashout.text).toBe(201);
    await call('DELETE', `${server.url}/api/credentials/${key.body.id}`, { headers });

    const entries = await all(merchant);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));
    expect(entries.map((e) => e.action).reverse()).toEqual([
      'login.succeeded',
      'credential.created', // createMerchant's key
      'login.failed',
      'credential.created',
      'allowed_ips.updated',
      'webhook.created',
      'webhook.updated',
      'webhook.secret_rotated',
      'webhook.deleted',
      'withdrawal.created',
      'credential.revoked',
    ]);
    const byAction = (a: string) => entries.find((e) => e.action === a)!;
    expect(byAction('credential.revoked')).toMatchObject({
      actor: { type: 'user', id: merchant.accountId, label: merchant.email },
      target: `credential:${key.body.id}`,
      ip: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
      userAgent: 'audit-test/1.0',
    });
    expect(byAction('withdrawal.created')).toMatchObject({
      actor: { type: 'api_key', id: merchant.credentialId, label: merchant.publicKey },
      target: expect.stringMatching(/^withdrawal:[0-9a-f-]{36}$/),
      userAgent: 'audit-test/1.0',
    });
    expect(byAction('login.failed').actor).toMatchObject({ type: 'user', id: merchant.accountId });
  });

  it('never shows another account’s entries', async () => {
    const other = await createMerchant(server);
    const entries = await all(other);
    expect(entries.map((e) => e.action)).toEqual(['credential.created', 'login.succeeded']);
  });

  it('records a logout, and operator changes made with the command line', async () => {
    const m = await createMerchant(server);
    const session = await login(server, m.email, m.password);
    await call('POST', `${server.url}/api/auth/logout`, {
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    const env = { DATABASE_URL: server.databaseUrl, DATA_DIR: server.env.DATA_DIR! };
    const update = await runGateway(
      ['accounts', 'update', '--id', String(m.accountId), '--cashout-fee-fixed', '0.50'],
      env,
    );
    expect(update.code, update.stderr).toBe(0);
    const entries = await all(m);
    expect(entries[0]).toMatchObject({
      action: 'account.updated',
      actor: { type: 'operator', id: null },
      target: `account:${m.accountId}`,
    });
    expect(entries[1]).toMatchObject({ action: 'logout', actor: { type: 'user', id: m.accountId } });
  });
});

describe('the rest of the logged actions', () => {
  it('records a recover, a panel withdrawal with the user as actor, and a global settings change', async () => {
    const m = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    const hook = await call<{ id: number }>('POST', `${server.url}/api/webhook`, {
      headers: m.panel,
      body: { webhookUrl: 'https://merchant.example.com/r', events: ['*'] },
    });
    const recovered = await call('POST', `${server.url}/api/webhook/${hook.body.id}/recover`, {
      headers: m.panel,
      body: { since: new Date(Date.now() - 3_600_000).toISOString() },
    });
    expect(recovered.status).toBe(202);
    const withdrawal = await call<{ uuid: string }>('POST', `${server.url}/api/withdrawals`, {
      headers: m.panel,
      body: { amount: 150, pixKey: '52998224725', password: m.password },
    });
    expect(withdrawal.status, withdrawal.text).toBe(201);
    const env = { DATABASE_URL: server.databaseUrl, DATA_DIR: server.env.DATA_DIR! };
    const set = await runGateway(['settings', 'set', 'api-withdrawals', 'on'], env);
    expect(set.code, set.stderr).toBe(0);

    const entries = await all(m);
    expect(entries.slice(0, 4).map((e) => e.action)).toEqual([
      'settings.updated',
      'withdrawal.created',
      'webhook.recovered',
      'webhook.created',
    ]);
    expect(entries[0]!.actor).toMatchObject({ type: 'operator', id: null });
    expect(entries[1]).toMatchObject({
      actor: { type: 'user', id: m.accountId, label: m.email },
      target: `withdrawal:${withdrawal.body.uuid}`,
    });
    expect(entries[2]).toMatchObject({ target: `webhook:${hook.body.id}`, actor: { type: 'user' } });
  });
});

describe('append-only', () => {
  it('the database refuses UPDATE, DELETE and TRUNCATE of audit entries', async () => {
    const { db } = server.runtime.platform;
    const [entry] = await db.query<{ id: number; action: string }>(
      'SELECT id, action FROM audit_log WHERE account_id = $1 ORDER BY id LIMIT 1',
      [merchant.accountId],
    );
    await expect(
      db.query(`UPDATE audit_log SET action = 'nothing' WHERE id = $1`, [entry!.id]),
    ).rejects.toThrow(/append-only/);
    await expect(db.query('DELETE FROM audit_log WHERE id = $1', [entry!.id])).rejects.toThrow(/append-only/);
    await expect(db.query('TRUNCATE audit_log')).rejects.toThrow(/append-only/);
    // and each month of it on its own (a TRUNCATE named at the parent is all its own trigger sees)
    const months = await db.query<{ name: string }>(
      `SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'audit_log'::regclass`,
    );
    expect(months.length).toBeGreaterThan(1);
    for (const { name } of months) {
      await expect(db.query(`TRUNCATE ${name}`), name).rejects.toThrow(/append-only/);
    }
    const [after] = await db.query<{ action: string }>('SELECT action FROM audit_log WHERE id = $1', [
      entry!.id,
    ]);
    expect(after!.action).toBe(entry!.action);
  });
});
