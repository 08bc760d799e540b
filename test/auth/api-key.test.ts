import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/db.js';
import { unauthorizedBody } from '../support/auth-checks.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { admin } from '../support/pg.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let second: TestServer; // another server on the same database, own pool, own cache, own listener
let child: ChildServer; // and a separate OS process
let merchant: TestMerchant;

interface Issued {
  id: number;
  publicKey: string;
  privateKey: string;
}
const keysOf = (c: Issued) => ({ 'x-api-public-key': c.publicKey, 'x-api-private-key': c.privateKey });
const balanceAt = (url: string, keys: Record<string, string>) =>
  call('GET', `${url}/api/public/balance`, { headers: keys });

async function issue(m: TestMerchant): Promise<Issued> {
  const res = await call<Issued>('POST', `${server.url}/api/credentials`, { headers: m.panel });
  expect(res.status).toBe(201);
  return res.body;
}
async function revoke(m: TestMerchant, id: number, at: string = server.url): Promise<void> {
  const res = await call('DELETE', `${at}/api/credentials/${id}`, { headers: m.panel });
  expect(res.status).toBe(204);
}

beforeAll(async () => {
  server = await startServer();
  second = await startServer({ databaseUrl: server.databaseUrl });
  child = await spawnGateway(['serve'], {
    DATABASE_URL: server.databaseUrl,
    DATA_DIR: server.env.DATA_DIR!,
    NODE_ENV: 'test',
  });
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await child?.stop();
  await second?.close();
  await server?.close();
});

describe('revocation', () => {
  it('takes effect on the very next request in the same process', async () => {
    for (let i = 0; i < 5; i++) {
      const pair = await issue(merchant);
      expect((await balanceAt(server.url, keysOf(pair))).status).toBe(200);
      await revoke(merchant, pair.id);
      const res = await balanceAt(server.url, keysOf(pair));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(unauthorizedBody('E'));
    }
  });

  it('takes effect on the very next request on every other server process', async () => {
    for (let i = 0; i < 10; i++) {
      const pair = await issue(merchant);
      // warm every process's cache with the valid pair
      for (const url of [server.url, second.url, child.url]) {
        expect((await balanceAt(url, keysOf(pair))).status).toBe(200);
      }
      await revoke(merchant, pair.id, i % 2 === 0 ? server.url : child.url);
      for (const url of [second.url, child.url, server.url]) {
        expect((await balanceAt(url, keysOf(pair))).status, url).toBe(401);
      }
    }
  });

  it('a key issued on one process works at once on the others (no stale "unknown key" answer)', async () => {
    const unknown = { 'x-api-public-key': 'pk_not-yet', 'x-api-private-key': 'sk_whatever' };
    expect((await balanceAt(child.url, unknown)).status).toBe(401);
    const pair = await issue(merchant);
    expect((await balanceAt(child.url, keysOf(pair))).status).toBe(200);
    expect((await balanceAt(second.url, keysOf(pair))).status).toBe(200);
  });

  it('an IP list saved on one process applies on the next request to another', async () => {
    const m = await createMerchant(server);
    expect((await balanceAt(child.url, m.keys)).status).toBe(200);
    const put = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: m.panel,
      body: { ips: ['198.51.100.4'] },
    });
    expect(put.status).toBe(200);
    expect((await balanceAt(child.url, m.keys)).status).toBe(403);
    expect((await balanceAt(second.url, m.keys)).status).toBe(403);
  });
});

describe('servers sharing a database', () => {
  it('share the generated development secrets (same DATA_DIR per database in tests)', () => {
    expect(second.runtime.platform.config.secretsKey.equals(server.runtime.platform.config.secretsKey)).toBe(
      true,
    );
    expect(second.runtime.platform.config.postbackSecret).toBe(server.runtime.platform.config.postbackSecret);
  });
});

describe('credential boundaries', () => {
  it('a panel session never opens /api/public/*, whatever else it carries', async () => {
    const res = await call('GET', `${server.url}/api/public/balance`, {
      headers: { cookie: merchant.cookie, 'x-csrf-token': merchant.csrf },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorizedBody('E'));
  });

  it('keys are case-sensitive and not trimmed', async () => {
    const upper = {
      ...merchant.keys,
      'x-api-private-key': merchant.keys['x-api-private-key']!.toUpperCase(),
    };
    expect((await balanceAt(server.url, upper)).status).toBe(401);
  });
});

describe('key verification cost', () => {
  it('touches no credential or IP-list table once warm', async () => {
    const m = await createMerchant(server);
    const db = server.runtime.platform.db as Db & { query: Db['query'] };
    expect((await balanceAt(server.url, m.keys)).status).toBe(200);
    const seen: string[] = [];
    const original = db.query.bind(db);
    db.query = (async (text: string, params?: readonly unknown[]) => {
      seen.push(text);
      return original(text, params);
    }) as Db['query'];
    try {
      for (let i = 0; i < 20; i++) expect((await balanceAt(server.url, m.keys)).status).toBe(200);
    } finally {
      db.query = original;
    }
    // (the last-use write is a background flush on a timer, not part of verifying a key)
    const verification = seen.filter((q) => !/SET last_used_at/.test(q));
    expect(verification.filter((q) => /api_credentials|allowed_ips/.test(q))).toEqual([]);
    // One query per request, the balance read. Background workers query meanwhile, each on its own timer, so
    // they are told apart by count: a query that verification added would run once per request, 20 times.
    const runs = new Map<string, number>();
    for (const q of seen) runs.set(q, (runs.get(q) ?? 0) + 1);
    const perRequest = [...runs].filter(([, n]) => n >= 20).map(([q]) => q);
    expect(perRequest).toHaveLength(1);
    expect(perRequest[0]).toMatch(/FROM ledger_accounts/);
    expect(runs.get(perRequest[0]!)).toBeLessThanOrEqual(20);
  });
});

describe('the cache listener', () => {
  async function listenerPids(): Promise<number[]> {
    const dbName = new URL(server.databaseUrl).pathname.slice(1);
    return admin(async (c) => {
      const r = await c.query<{ pid: number }>(
        // the one listening connection of each process LISTENs on every channel (the auth cache's among them)
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %'`,
        [dbName],
      );
      return r.rows.map((row) => row.pid);
    });
  }

  it('recovers from a lost LISTEN connection without serving stale keys', async () => {
    const pair = await issue(merchant);
    expect((await balanceAt(server.url, keysOf(pair))).status).toBe(200);
    const { db } = server.runtime.platform;
    for (const url of [second.url, child.url]) {
      expect((await balanceAt(url, keysOf(pair))).status).toBe(200);
    }
    const before = await listenerPids();
    expect(before.length).toBeGreaterThanOrEqual(3); // server, second, child
    // A change whose notification is lost (no NOTIFY at all), then every listener connection cut: each
    // process must forget what it cached and re-establish its listener.
    await db.query('UPDATE api_credentials SET revoked_at = now() WHERE id = $1', [pair.id]);
    await admin((c) => c.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]));
    await expect
      .poll(async () => (await listenerPids()).filter((p) => !before.includes(p)).length, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(3);
    await expect.poll(() => db.listening, { timeout: 20_000 }).toBe(true);
    for (const url of [server.url, second.url, child.url]) {
      expect((await balanceAt(url, keysOf(pair))).status, url).toBe(401);
    }
    // and notifications flow again over the new connections
    const next = await issue(merchant);
    for (const url of [server.url, second.url, child.url]) {
      expect((await balanceAt(url, keysOf(next))).status).toBe(200);
    }
    await revoke(merchant, next.id);
    for (const url of [second.url, child.url, server.url]) {
      expect((await balanceAt(url, keysOf(next))).status, url).toBe(401);
    }
  });
});
