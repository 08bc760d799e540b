import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.js';
import {
  PASSWORD_CHECKS_AT_ONCE,
  type PasswordCheckServed,
  passwordCheckChannel,
} from '../../src/auth/passwords.js';
import { deleteExpiredAuthRows } from '../../src/auth/sessions.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;

// the floods are measured against password hashes of the production cost (NODE_ENV=test makes cheap ones):
// this process's hashes read NODE_ENV at each hash
const nodeEnv = process.env.NODE_ENV;
beforeAll(async () => {
  process.env.NODE_ENV = 'production';
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
});
afterAll(async () => {
  process.env.NODE_ENV = nodeEnv;
  await server?.close();
});

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

describe('a flood of wrong passwords on 40 known emails, from rotating addresses behind a trusted proxy', () => {
  it("serves a real user's first password check before the flood's backlog", async () => {
    // behind a proxy (TRUST_PROXY), the per-address login limit at its default: every flood request names
    // another source address in X-Forwarded-For, so the per-address limit never applies
    const proxied = await startServer({
      workers: false,
      env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_LOGIN_PER_IP: '20' },
    });
    const served: PasswordCheckServed[] = [];
    const listen = (message: unknown) => served.push(message as PasswordCheckServed);
    passwordCheckChannel.subscribe(listen);
    let flood: Worker | undefined;
    try {
      const { db } = proxied.runtime.platform;
      const tag = randomBytes(4).toString('hex');
      // made together: each is a slow password hash, and the pool's threads hash four at a time
      const flooded = Array.from({ length: 40 }, (_, i) => `flooded-${i}-${tag}@example.com`);
      await Promise.all(
        flooded.map((email, i) =>
          createAccount(db, {
            name: `Flooded ${i}`,
            email,
            password: `pw-${randomBytes(8).toString('hex')}`,
          }),
        ),
      );
      const user = { email: `real-${tag}@example.com`, password: `pw-${randomBytes(8).toString('hex')}` };
      await createAccount(db, { name: 'Real user', ...user });
      let addresses = 0;
      const login = async () => {
        const from = served.length;
        const t = performance.now();
        const res = await call('POST', `${proxied.url}/api/auth/login`, {
          body: user,
          headers: { 'x-forwarded-for': `192.0.2.${++addresses % 250}` },
        });
        const ms = performance.now() - t;
        expect(res.status, res.text).toBe(200);
        return { ms, checks: served.slice(from) };
      };

      // alone: 5 logins before the flood and 5 once it has ended and its last checks are answered (the machine's
      // other load drifts; the before and after readings together are the baseline)
      const alone: number[] = [];
      for (let i = 0; i < 5; i++) alone.push((await login()).ms);

      // 32 clients, each sending wrong passwords to the 40 emails in turn (at most 1,000 attempts each until
      // told to stop), each request from another address, on a thread of their own
      flood = new Worker(
        `
        const { parentPort, workerData } = require('node:worker_threads');
        const { Agent, request } = require('undici');
        const agent = new Agent({ connections: 64 });
        let stop = false;
        let answered = 0;
        let sent = 0;
        const statuses = {};
        parentPort.on('message', () => { stop = true; });
        const client = async () => {
          for (let n = 0; n < 1000 && !stop; n++) {
            const i = sent++;
            const res = await request(workerData.url, {
              method: 'POST',
              dispatcher: agent,
              headers: {
                'content-type': 'application/json',
                'x-forwarded-for': '10.' + ((i >> 16) & 255) + '.' + ((i >> 8) & 255) + '.' + (i & 255),
              },
              body: JSON.stringify({ email: workerData.emails[i % workerData.emails.length], password: 'wrong password ' + i }),
            });
            await res.body.dump();
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            answered++;
            // every flooded email has had its first attempt answered: the flood's checks are past their turn 1
            if (answered === 2 * workerData.emails.length) parentPort.postMessage({ started: true });
          }
        };
        Promise.all(Array.from({ length: 32 }, () => client())).then(() => parentPort.postMessage({ answered, statuses }));
        `,
        { eval: true, workerData: { url: `${proxied.url}/api/auth/login`, emails: flooded } },
      );
      type FloodMessage = { started?: boolean; answered?: number; statuses?: Record<string, number> };
      const next = (worker: Worker) =>
        new Promise<FloodMessage>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        });
      expect(await next(flood)).toEqual({ started: true });
      const during: Awaited<ReturnType<typeof login>>[] = [];
      for (let i = 0; i < 5; i++) during.push(await login());
      flood.postMessage('stop');
      const end = await next(flood);
      for (let i = 0; i < 5; i++) alone.push((await login()).ms);

      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const mine = during.map((d) => d.checks.filter((c) => !c.imitation && c.turn === 1));
      console.log(
        `wrong-password flood on 40 known emails: a correct login took ${alone.map((ms) => ms.toFixed(0)).join(', ')} ms alone ` +
          `(median ${median(alone).toFixed(0)}), ${during.map((d) => d.ms.toFixed(0)).join(', ')} ms during the flood ` +
          `(median ${median(during.map((d) => d.ms)).toFixed(0)}, ` +
          `${(median(during.map((d) => d.ms)) / median(alone)).toFixed(2)}× alone; machine load ${loadavg()[0]!.toFixed(1)}); its check found ` +
          `${mine.map((m) => m[0]?.waitingOnArrival).join(', ')} flood checks waiting ` +
          `(${mine.map((m) => m[0]?.hashingOnArrival).join(', ')} hashing) and waited ` +
          `${mine.map((m) => m[0]?.waitedMs.toFixed(0)).join(', ')} ms for its turn; ` +
          `the flood made ${end.answered} attempts (${JSON.stringify(end.statuses)})`,
      );
      for (const [i, checks] of mine.entries()) {
        // the real user's is the only first turn among the checks served meanwhile
        expect(checks, `login ${i} during the flood`).toHaveLength(1);
        const check = checks[0]!;
        // it arrived behind a backlog of the flood's checks and none of them was served before it
        expect(check.waitingOnArrival, `login ${i}: the flood's backlog`).toBeGreaterThan(
          PASSWORD_CHECKS_AT_ONCE,
        );
        expect(check.servedBefore, `login ${i}: checks served before it`).toBe(0);
        // and found a slot free: it waited for no guess's hash to end
        expect(check.hashingOnArrival, `login ${i}: hashing when it arrived`).toBeLessThan(
          PASSWORD_CHECKS_AT_ONCE,
        );
        // what did run meanwhile was the flood's, past its first turns
        expect(during[i]!.checks.filter((c) => c !== check).every((c) => c.turn > 1)).toBe(true);
      }
      expect(end.answered).toBeLessThan(32 * 1000);
    } finally {
      passwordCheckChannel.unsubscribe(listen);
      await flood?.terminate();
      await proxied.close();
    }
    // 41 accounts' slow password hashes and 15 logins: on a loaded 2-core machine it has taken over a minute
  }, 180_000);
});

describe('expired panel sessions and stale login failures', () => {
  it('are deleted by the periodic cleanup; live ones stay', async () => {
    const { db } = server.runtime.platform;
    const tag = randomBytes(4).toString('hex');
    await db.query(
      `INSERT INTO panel_sessions (token_hash, account_id, user_id, csrf_token, expires_at)
       SELECT v.token, $3, u.id, 'c', v.expires FROM users u,
         (VALUES ($1, now() - interval '1 minute'), ($2, now() + interval '1 hour')) AS v(token, expires)
        WHERE u.account_id = $3`,
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
