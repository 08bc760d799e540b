import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredAuthRows } from '../../src/auth/sessions.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe('a flood of logins with random emails', () => {
  it('does not keep a correct login from completing while it runs', async () => {
    let stop = false;
    let answered = 0;
    // 32 clients on 8 other addresses, each at most 100 attempts, until told to stop
    const flood = Array.from({ length: 32 }, async (_, i) => {
      for (let n = 0; n < 100 && !stop; n++) {
        await call('POST', `${server.url}/api/auth/login`, {
          body: { email: `junk-${randomBytes(8).toString('hex')}@example.com`, password: 'wrong password' },
          localAddress: `127.0.0.${10 + (i % 8)}`,
        });
        answered++;
      }
    });
    for (let i = 0; i < 200 && answered < 32; i++) await new Promise((r) => setTimeout(r, 50));
    const res = await call<{ csrfToken: string }>('POST', `${server.url}/api/auth/login`, {
      body: { email: merchant.email, password: merchant.password },
    });
    const floodStillRunning = answered < 32 * 100;
    stop = true;
    await Promise.all(flood);
    expect(res.status, res.text).toBe(200);
    expect(res.body.csrfToken).toEqual(expect.any(String));
    expect(floodStillRunning).toBe(true);
  });
});

describe('expired panel sessions and stale login failures', () => {
  it('are deleted by the periodic cleanup; live ones stay', async () => {
    const { db } = server.runtime.platform;
    const tag = randomBytes(4).toString('hex');
    await db.query(
      `INSERT INTO panel_sessions (token_hash, account_id, csrf_token, expires_at) VALUES
         ($1, $3, 'c', now() - interval '1 minute'), ($2, $3, 'c', now() + interval '1 hour')`,
      [`old-${tag}`, `live-${tag}`, merchant.accountId],
    );
    await db.query(
      `INSERT INTO login_failures (email, failures, window_started_at, locked_until) VALUES
         ($1, 1, now() - interval '1 hour', NULL),
         ($2, 9, now() - interval '1 hour', now() + interval '5 minutes'),
         ($3, 1, now(), NULL)`,
      [`stale-${tag}`, `locked-${tag}`, `recent-${tag}`],
    );
    expect(await deleteExpiredAuthRows(db)).toBeGreaterThanOrEqual(2);
    const sessions = await db.query<{ token_hash: string }>(
      'SELECT token_hash FROM panel_sessions WHERE token_hash LIKE $1 ORDER BY 1',
      [`%-${tag}`],
    );
    expect(sessions.map((r) => r.token_hash)).toEqual([`live-${tag}`]);
    const failures = await db.query<{ email: string }>(
      'SELECT email FROM login_failures WHERE email LIKE $1 ORDER BY 1',
      [`%-${tag}`],
    );
    expect(failures.map((r) => r.email)).toEqual([`locked-${tag}`, `recent-${tag}`]);
  });
});
