import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
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
    // 32 clients on 8 other addresses, each at most 100 attempts until told to stop, on a thread of their own
    // (the flood's own work does not delay the correct login's timing here)
    const flood = new Worker(
      `
      const { parentPort, workerData } = require('node:worker_threads');
      const { Agent, request } = require('undici');
      const { randomBytes } = require('node:crypto');
      let stop = false;
      let answered = 0;
      parentPort.on('message', () => { stop = true; });
      const agents = Array.from({ length: 8 }, (_, i) => new Agent({ connect: { localAddress: '127.0.0.' + (10 + i) } }));
      const client = async (i) => {
        for (let n = 0; n < 100 && !stop; n++) {
          const res = await request(workerData.url, {
            method: 'POST',
            dispatcher: agents[i % 8],
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'junk-' + randomBytes(8).toString('hex') + '@example.com', password: 'wrong password' }),
          });
          await res.body.dump();
          answered++;
          if (answered === 32) parentPort.postMessage({ started: true });
        }
      };
      Promise.all(Array.from({ length: 32 }, (_, i) => client(i))).then(() => parentPort.postMessage({ answered }));
      `,
      { eval: true, workerData: { url: `${server.url}/api/auth/login` } },
    );
    const messages: { started?: boolean; answered?: number }[] = [];
    const next = () =>
      new Promise<{ started?: boolean; answered?: number }>((resolve, reject) => {
        flood.once('message', resolve);
        flood.once('error', reject);
      });
    messages.push(await next());
    const t = performance.now();
    const res = await call<{ csrfToken: string }>('POST', `${server.url}/api/auth/login`, {
      body: { email: merchant.email, password: merchant.password },
    });
    const ms = performance.now() - t;
    flood.postMessage('stop');
    messages.push(await next());
    await flood.terminate();
    const answered = messages[1]?.answered ?? 0;
    console.log(
      `login flood: the correct login took ${ms.toFixed(0)} ms; the flood made ${answered} attempts`,
    );
    expect(messages[0]).toEqual({ started: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.csrfToken).toEqual(expect.any(String));
    // the flood was still running when the correct login completed
    expect(answered).toBeLessThan(32 * 100);
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
