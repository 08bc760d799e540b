import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

interface Issued {
  id: number;
  name: string;
  scope: 'full' | 'charges' | 'read';
  publicKey: string;
  privateKey: string;
  createdAt: string;
  expiresAt: string | null;
}

let server: TestServer;
let second: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  // a second API process on the same database: changes must reach it before the changing request answers
  second = await startServer({ databaseUrl: server.databaseUrl, workers: false });
  merchant = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, merchant.accountId, 1_000_000);
});
afterAll(async () => {
  await second?.close();
  await server?.close();
});

const keysOf = (k: { publicKey: string; privateKey: string }) => ({
  'x-api-public-key': k.publicKey,
  'x-api-private-key': k.privateKey,
});

async function issue(body?: object) {
  const res = await call<Issued>('POST', `${server.url}/api/credentials`, { headers: merchant.panel, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const balance = (base: string, key: { publicKey: string; privateKey: string }) =>
  call('GET', `${base}/api/public/balance`, { headers: keysOf(key) });

describe('key name, scope and expiry', () => {
  it('creates a named read key; it opens GET routes and is refused (403 shape C) on the cashout, shape D elsewhere', async () => {
    const key = await issue({ name: 'Relatórios', scope: 'read' });
    expect(key).toMatchObject({ name: 'Relatórios', scope: 'read', expiresAt: null });
    expect((await balance(server.url, key)).status).toBe(200);
    const cashout = await call('POST', `${server.url}/api/public/cashout`, {
      headers: keysOf(key),
      body: { value: 10, pixKey: 'a@b.com', pixKeyType: 'EMAIL' },
    });
    expect(cashout.status).toBe(403);
    expect(cashout.body).toEqual({ errorType: 'FORBIDDEN', message: expect.any(String) });
    // every API-key route that changes something, whatever shape its other errors take
    for (const path of [
      '/api/transactions',
      '/api/transactions/1/refund',
      '/api/sandbox/sales',
      '/api/sandbox/sales/1/status',
      '/api/sandbox/cashouts/1/result',
      '/api/sandbox/carts',
    ]) {
      const refused = await call('POST', `${server.url}${path}`, { headers: keysOf(key), body: {} });
      expect(refused.status, path).toBe(403);
      expect(refused.body, path).toEqual({ error: 'FORBIDDEN', message: expect.any(String) });
    }
    const [row] = await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
      [merchant.accountId],
    );
    expect(row!.n).toBe(0);
  });

  it('defaults to an unnamed full key and refuses a bad scope, name or expiry with 400 and nothing stored', async () => {
    const key = await issue();
    expect(key).toMatchObject({ name: '', scope: 'full', expiresAt: null });
    const before = await call<unknown[]>('GET', `${server.url}/api/credentials`, { headers: merchant.panel });
    for (const body of [
      { scope: 'admin' },
      { name: 'x'.repeat(101) },
      { expiresAt: 'tomorrow' },
      { expiresAt: '2020-01-01T00:00:00Z' },
    ]) {
      const res = await call('POST', `${server.url}/api/credentials`, { headers: merchant.panel, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    const scope = await call('POST', `${server.url}/api/credentials`, {
      headers: merchant.panel,
      body: { scope: 'admin' },
    });
    expect(scope.body).toMatchObject({
      error: { message: 'Invalid body/scope: must be one of "read", "charges", "full"' },
    });
    const after = await call<unknown[]>('GET', `${server.url}/api/credentials`, { headers: merchant.panel });
    expect(after.body).toHaveLength(before.body.length);
  });

  it('refuses an expired key like an invalid one, on every process', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const key = await issue({ name: 'short', expiresAt });
    expect(key.expiresAt).toBe(expiresAt);
    expect((await balance(server.url, key)).status).toBe(200);
    expect((await balance(second.url, key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Date.parse(expiresAt) - Date.now() + 50));
    for (const base of [server.url, second.url]) {
      const res = await balance(base, key);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'UNAUTHORIZED', message: 'Invalid API keys' });
    }
  });
});

describe('POST /api/credentials/{id}/roll', () => {
  it('with a grace period: both pairs work, the old one until its new expiry; same name and scope', async () => {
    const old = await issue({ name: 'loja', scope: 'read' });
    const res = await call<Issued>('POST', `${server.url}/api/credentials/${old.id}/roll`, {
      headers: merchant.panel,
      body: { graceHours: 2 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'loja', scope: 'read', expiresAt: null });
    expect(res.body.privateKey).toMatch(/^sk_/);
    expect((await balance(server.url, old)).status).toBe(200);
    expect((await balance(second.url, res.body)).status).toBe(200);
    const list = await call<{ id: number; expiresAt: string | null }[]>(
      'GET',
      `${server.url}/api/credentials`,
      {
        headers: merchant.panel,
      },
    );
    const listed = list.body.find((c) => c.id === old.id)!;
    const hoursLeft = (Date.parse(listed.expiresAt!) - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(1.9);
    expect(hoursLeft).toBeLessThanOrEqual(2);
    // a rolled key is not rolled twice (its successor is the one to roll)
    const again = await call('POST', `${server.url}/api/credentials/${old.id}/roll`, {
      headers: merchant.panel,
      body: { graceHours: 0 },
    });
    expect(again.status).toBe(400);
  });

  it('with graceHours 0, while requests run on two processes: the old pair is refused everywhere once the roll answers', async () => {
    const old = await issue({ name: 'rolling' });
    let stop = false;
    const seen: { at: number; status: number }[] = [];
    const load = [server.url, second.url].map(async (base) => {
      while (!stop) seen.push({ at: Date.now(), status: (await balance(base, old)).status });
    });
    await new Promise((r) => setTimeout(r, 200));
    const res = await call<Issued>('POST', `${server.url}/api/credentials/${old.id}/roll`, {
      headers: merchant.panel,
      body: { graceHours: 0 },
    });
    const answeredAt = Date.now();
    expect(res.status).toBe(201);
    await new Promise((r) => setTimeout(r, 200));
    stop = true;
    await Promise.all(load);
    expect(seen.some((s) => s.status === 200)).toBe(true);
    // every request that started after the roll answered was refused, on both processes
    for (const s of seen.filter((x) => x.at > answeredAt)) expect(s.status).toBe(401);
    expect((await balance(server.url, old)).status).toBe(401);
    expect((await balance(second.url, old)).status).toBe(401);
    expect((await balance(second.url, res.body)).status).toBe(200);
  });

  it('refuses graceHours outside 0..168, and another account’s key (404)', async () => {
    const key = await issue();
    for (const graceHours of [-1, 169, 1.5]) {
      const res = await call('POST', `${server.url}/api/credentials/${key.id}/roll`, {
        headers: merchant.panel,
        body: { graceHours },
      });
      expect(res.status).toBe(400);
    }
    const other = await createMerchant(server);
    const res = await call('POST', `${server.url}/api/credentials/${key.id}/roll`, {
      headers: other.panel,
      body: { graceHours: 0 },
    });
    expect(res.status).toBe(404);
    expect((await balance(server.url, key)).status).toBe(200);
  });
});

describe('last use', () => {
  it('records when and from which IP a key was last used, in batches (no write per request)', async () => {
    const key = await issue({ name: 'used' });
    for (let i = 0; i < 5; i++) expect((await balance(second.url, key)).status).toBe(200);
    const used = await waitUntil(
      async () => {
        const list = await call<{ id: number; lastUsedAt: string | null; lastUsedIp: string | null }[]>(
          'GET',
          `${server.url}/api/credentials`,
          { headers: merchant.panel },
        );
        const entry = list.body.find((c) => c.id === key.id);
        return entry?.lastUsedAt ? entry : undefined;
      },
      30_000,
      () => 'lastUsedAt to be recorded',
    );
    expect(used.lastUsedIp).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(Date.parse(used.lastUsedAt!)).toBeGreaterThan(Date.parse(key.createdAt));
  });
});
