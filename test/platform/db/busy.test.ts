import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { admin } from '../../support/pg.js';
import { startServer, type TestServer } from '../../support/server.js';

// A server whose database role has a small CONNECTION LIMIT: once the test holds the role's free slots,
// every connection the server's pool opens is refused with SQLSTATE 53300, as "sorry, too many clients
// already" is when the whole server is full.
const ROLE = `gw_busy_${randomBytes(4).toString('hex')}`;
const LIMIT = 8;
let setup: TestServer;
let busy: TestServer;
let merchant: TestMerchant;
const held: pg.Client[] = [];

beforeAll(async () => {
  setup = await startServer({ workers: false });
  merchant = await createMerchant(setup);
  // a member of the tables' owner, not a superuser (superusers are exempt from the limit)
  await admin((c) => c.query(`CREATE ROLE ${ROLE} LOGIN CONNECTION LIMIT ${LIMIT} IN ROLE postgres`));
  const url = new URL(setup.databaseUrl);
  url.username = ROLE;
  busy = await startServer({
    databaseUrl: url.toString(),
    workers: false,
    env: { DATA_DIR: setup.env.DATA_DIR! },
  });
});
afterAll(async () => {
  for (const c of held) await c.end().catch(() => undefined);
  await busy?.runtime.close();
  await setup?.close();
  await admin((c) => c.query(`DROP ROLE IF EXISTS ${ROLE}`));
});

/**
 * Leaves the server's pool without an idle connection (ended by the server, as an idle timeout would; its
 * LISTEN connection is left alone), then takes every slot the role has: the next request needs a new one.
 */
async function fillSlots(url: string): Promise<void> {
  for (const c of held.splice(0)) await c.end();
  await admin((c) =>
    c.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE usename = $1 AND state = 'idle' AND query NOT ILIKE 'listen%'`,
      [ROLE],
    ),
  );
  await new Promise((r) => setTimeout(r, 300));
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      held.push(client);
    } catch (err) {
      expect((err as { code?: string }).code).toBe('53300');
      return;
    }
  }
}

describe('a database with no room for another connection', () => {
  it('every route answers 503 SERVICE_UNAVAILABLE with Retry-After in its own error shape, never 500', async () => {
    const routes: {
      name: string;
      method: string;
      path: string;
      headers: Record<string, string>;
      body?: unknown;
    }[] = [
      { name: 'balance (shape E)', method: 'GET', path: '/api/public/balance', headers: merchant.keys },
      {
        name: 'transaction (shape D)',
        method: 'GET',
        path: `/api/transactions/${randomUUID()}`,
        headers: merchant.keys,
      },
      {
        name: 'cashout lookup',
        method: 'GET',
        path: `/api/public/cashout/${randomUUID()}`,
        headers: merchant.keys,
      },
      { name: 'events (shape A)', method: 'GET', path: '/api/events?limit=1', headers: merchant.keys },
      { name: 'panel (shape A)', method: 'GET', path: '/api/users', headers: merchant.panel },
      {
        name: 'login (shape A)',
        method: 'POST',
        path: '/api/auth/login',
        headers: {},
        body: { email: merchant.email, password: merchant.password },
      },
    ];
    for (const route of routes) {
      // the route's own error shape: the keys of its answer without credentials
      const refused = await call<Record<string, unknown>>(route.method, `${busy.url}${route.path}`, {
        ...(route.body ? { body: { email: 'x', password: 'y' } } : {}),
      });
      const shapeKeys = Object.keys(refused.body).sort();
      // a connection busy while the idle ones were ended (the server's heartbeat, a request) stays in its pool
      // and may serve the burst: filled again until the burst needs a new connection
      let statuses: number[] = [];
      let unavailable: { status: number; headers: Record<string, unknown>; body: Record<string, unknown> }[] =
        [];
      for (let round = 0; round < 5 && unavailable.length === 0; round++) {
        await fillSlots(busy.databaseUrl);
        const answers = await Promise.all(
          Array.from({ length: 40 }, () =>
            call<Record<string, unknown>>(route.method, `${busy.url}${route.path}`, {
              headers: route.headers,
              ...(route.body ? { body: route.body } : {}),
            }),
          ),
        );
        statuses = answers.map((a) => a.status);
        expect(statuses, route.name).not.toContain(500);
        unavailable = answers.filter((a) => a.status === 503);
      }
      expect(unavailable.length, `${route.name}: ${statuses.join(',')}`).toBeGreaterThan(0);
      for (const a of unavailable) {
        expect(Number(a.headers['retry-after']), route.name).toBeGreaterThan(0);
        expect(Object.keys(a.body).sort(), route.name).toEqual(shapeKeys);
        expect(JSON.stringify(a.body), route.name).toContain('SERVICE_UNAVAILABLE');
      }
    }

    // the server was busy, not lost: once slots free up, the same requests succeed
    for (const c of held.splice(0)) await c.end();
    const after = await call('GET', `${busy.url}/api/public/balance`, { headers: merchant.keys });
    expect(after.status).toBe(200);
  }, 120_000);
});

describe('no pooled connection free in time (DB_POOL_WAIT_MS)', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, never 500, and takes the server for busy, not lost', async () => {
    const server = await startServer({ workers: false, env: { DB_POOL_WAIT_MS: '300' } });
    try {
      // each panel list holds one pooled connection while the table is locked (balance reads would share
      // one statement); the pool has DB_POOL_MAX (TEST_LIMITS)
      const m = await createMerchant(server);
      const list = () =>
        call<Record<string, unknown>>('GET', `${server.url}/api/sales?limit=5`, { headers: m.panel });
      expect((await list()).status).toBe(200);
      const lock = new pg.Client({ connectionString: server.databaseUrl });
      await lock.connect();
      try {
        await lock.query('BEGIN');
        await lock.query('LOCK TABLE sales IN ACCESS EXCLUSIVE MODE');
        const pending = Array.from({ length: 30 }, list);
        await new Promise((r) => setTimeout(r, 1500));
        expect(server.runtime.platform.db.available).toBe(true); // busy, not lost: no search under way
        await lock.query('ROLLBACK');
        const answers = await Promise.all(pending);
        const statuses = answers.map((a) => a.status);
        expect(statuses).not.toContain(500);
        const unavailable = answers.filter((a) => a.status === 503);
        expect(unavailable.length, statuses.join(',')).toBeGreaterThan(0);
        expect(statuses.filter((s) => s === 200).length, statuses.join(',')).toBeGreaterThan(0);
        for (const a of unavailable) {
          expect(a.body).toEqual({
            success: false,
            error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
          }); // shape A
          expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
        }
      } finally {
        await lock.end();
      }
      expect((await list()).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 120_000);
});
