import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runGateway } from '../support/cli.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { recordFact } from '../support/notifications.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

const SECRETS_KEY = randomBytes(32).toString('base64');
const SETTINGS = { SECRETS_KEY, WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_RETRY_DELAYS_MS: '200,200' };

/** The API in this process without workers; deliveries are made by child `gateway worker` processes. */
let api: TestServer;
const children: ChildServer[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  api = await startServer({ workers: false, env: SETTINGS });
});
// a test that failed before stopping its workers must not leave them delivering during the next test
afterEach(async () => {
  for (const c of children)
    if (c.process.exitCode === null && c.process.signalCode === null) await c.stop('SIGKILL');
});
afterAll(async () => {
  // a child that already exited (stopped by a test) has nothing left to stop
  for (const c of children)
    if (c.process.exitCode === null && c.process.signalCode === null) await c.stop('SIGKILL');
  for (const r of receivers) await r.close();
  await api?.close();
});

function worker(extra: Record<string, string> = {}): Promise<ChildServer> {
  return spawnGateway(['worker'], {
    ...SETTINGS,
    ...extra,
    NODE_ENV: 'test',
    DATABASE_URL: api.databaseUrl,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-worker-')),
  }).then((c) => {
    children.push(c);
    return c;
  });
}

async function statuses(accountId: number) {
  return api.runtime.platform.db.query<{ event_id: string; status: string; attempts: number }>(
    `SELECT d.event_id, d.status, d.attempts FROM notification_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id WHERE w.account_id = $1`,
    [accountId],
  );
}

describe('durability', () => {
  it('delivers everything after the worker process is SIGKILLed with attempts in flight and facts pending', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.setFallback('hang');
    const m = await createMerchant(api);
    await createWebhook(api, m, receiver.url, ['*']);
    const first = await worker();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await recordFact(api, m.accountId, 'sale.paid'));
    await receiver.waitFor(1);
    expect(await first.stop('SIGKILL')).toBeNull();
    receiver.setFallback({ status: 200 });
    for (let i = 0; i < 10; i++) ids.push(await recordFact(api, m.accountId, 'withdrawal.completed'));

    const second = await worker();
    const rows = await waitUntil(
      async () => {
        const r = await statuses(m.accountId);
        return r.length === ids.length && r.every((x) => x.status === 'DELIVERED') ? r : undefined;
      },
      60000,
      () => 'every delivery DELIVERED after restart',
    );
    expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(ids));
    const delivered = new Set(
      receiver.received.slice(-1000).map((r) => r.headers['x-service-event-id'] as string),
    );
    for (const id of ids) expect(delivered.has(id), id).toBe(true);
    const [interrupted] = await api.runtime.platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_attempts WHERE error LIKE 'interrupted%'`,
    );
    expect(interrupted!.n).toBeGreaterThan(0);
    await second.stop();
  });

  it('a worker SIGKILLed with third attempts waiting in its memory leaves none of them FAILED unsent', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    // every delivery's first two attempts answer 500, whatever order they come in; its third one hangs, so
    // third attempts fill the host's 8 slots and the rest wait, claimed, in the worker's memory
    const seen = new Map<string, number>();
    let firstThirdAt = 0;
    receiver.setFallback((r) => {
      const id = r.headers['x-service-event-id'] as string;
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      if (n < 3) return { status: 500 };
      firstThirdAt ||= Date.now();
      return 'hang';
    });
    const m = await createMerchant(api);
    await createWebhook(api, m, receiver.url, ['sale.paid']);
    const first = await worker({ WEBHOOK_TIMEOUT_MS: '4000' });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await recordFact(api, m.accountId, 'sale.paid'));
    // killed once 8 third attempts hang, or 1 s after the first did: well before any of them times out (4 s),
    // so none can end FAILED before the kill
    const thirds = () => [...seen.values()].filter((n) => n >= 3).length;
    await waitUntil(
      async () => thirds() >= 8 || (firstThirdAt > 0 && Date.now() - firstThirdAt > 1000) || undefined,
      30_000,
      () => `third attempts hanging: ${thirds()}`,
    );
    expect(await first.stop('SIGKILL')).toBeNull();
    receiver.setFallback({ status: 200 });
    const second = await worker();
    const rows = await waitUntil(
      async () => {
        const r = await statuses(m.accountId);
        return r.length === ids.length && r.every((x) => x.status !== 'PENDING') ? r : undefined;
      },
      60000,
      () => 'every delivery settled after restart',
    );
    expect(rows.filter((r) => r.status !== 'DELIVERED')).toEqual([]);
    await second.stop();
  });

  it('a webhook disabled while its attempts wait in the worker’s memory gets none of them; they are SKIPPED', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.setFallback('hang');
    const m = await createMerchant(api);
    const hook = await createWebhook(api, m, receiver.url, ['sale.paid']);
    // the 8 in flight must outlast the disable reaching the worker (its webhook read is up to 1 s old)
    const w = await worker({ WEBHOOK_TIMEOUT_MS: '4000' });
    for (let i = 0; i < 40; i++) await recordFact(api, m.accountId, 'sale.paid');
    await receiver.waitFor(8); // 8 in flight, the rest claimed and waiting for their host's slots
    const off = await call('PUT', `${api.url}/api/webhook/${hook.id}`, {
      headers: m.panel,
      body: { status: 'disabled' },
    });
    expect(off.status, off.text).toBe(200);
    receiver.setFallback({ status: 200 });
    const rows = await waitUntil(
      async () => {
        const r = await statuses(m.accountId);
        return r.length === 40 && r.every((x) => x.status === 'SKIPPED') ? r : undefined;
      },
      60000,
      () => 'every delivery SKIPPED',
    );
    expect(rows).toHaveLength(40);
    // the 8 in flight when it was disabled, and nothing after
    expect(receiver.received).toHaveLength(8);
    await w.stop();
  });

  it('a worker started with another SECRETS_KEY than the stored secrets were sealed with stops at once, naming it', async () => {
    const m = await createMerchant(api);
    await createWebhook(api, m, 'http://127.0.0.1:9/never', ['sale.paid']);
    const run = await runGateway(['worker'], {
      ...SETTINGS,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      NODE_ENV: 'test',
      DATABASE_URL: api.databaseUrl,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-worker-')),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/SECRETS_KEY does not open the secrets already stored \(webhook \d+\)/);
  });

  it('two worker processes on one database never make the same attempt twice', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    // some first attempts fail with 500, so retries are scheduled and claimed across both processes
    receiver.queue(...Array.from({ length: 15 }, () => ({ status: 500 })));
    const m = await createMerchant(api);
    const hook = await createWebhook(api, m, receiver.url, ['sale.paid']);
    // a generous timeout: on a loaded machine a timed-out attempt is legitimate, but not what this test is about
    await Promise.all([worker({ WEBHOOK_TIMEOUT_MS: '10000' }), worker({ WEBHOOK_TIMEOUT_MS: '10000' })]);
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push(await recordFact(api, m.accountId, 'sale.paid'));
    const rows = await waitUntil(
      async () => {
        const r = await statuses(m.accountId);
        return r.length === ids.length && r.every((x) => x.status === 'DELIVERED') ? r : undefined;
      },
      60000,
      () => 'every delivery DELIVERED',
    );
    const perEvent = new Map<string, number>();
    for (const r of receiver.received) {
      const id = r.headers['x-service-event-id'] as string;
      perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    }
    for (const r of rows) expect(perEvent.get(r.event_id), r.event_id).toBe(r.attempts);
    expect(receiver.received).toHaveLength(rows.reduce((n, r) => n + r.attempts, 0));
    // no attempt was taken for dead while its process was alive (which would make the next one early)
    const interrupted = await api.runtime.platform.db.query(
      `SELECT a.delivery_id, a.attempt FROM notification_attempts a
         JOIN notification_deliveries d ON d.id = a.delivery_id
        WHERE d.webhook_id = $1 AND a.error LIKE 'interrupted%'`,
      [hook.id],
    );
    expect(interrupted).toEqual([]);
  });
});

describe('the worker’s log', () => {
  it('has a line for each attempt that failed, naming the receiver by host only, and a warning when it gives up', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.setFallback({ status: 503 });
    const m = await createMerchant(api);
    await createWebhook(api, m, `${receiver.url}/hooks/private-path?token=merchant-secret`, ['sale.paid']);
    await worker();
    // workers of the tests above may still run on this database and make some of the attempts
    const output = () => children.map((c) => c.output()).join('\n');
    const id = await recordFact(api, m.accountId, 'sale.paid');
    const deliveryId = await waitUntil(async () => {
      const [d] = await api.runtime.platform.db.query<{ id: string }>(
        'SELECT id::text AS id FROM notification_deliveries WHERE event_id = $1',
        [id],
      );
      return d?.id;
    });
    const lines = await waitUntil(
      async () => {
        const found = output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => typeof l.msg === 'string' && l.msg.startsWith('notification'))
          .filter((l) => String(l.deliveryId) === deliveryId)
          .sort((a, b) => Number(a.attempt) - Number(b.attempt));
        return found.some((l) => l.msg === 'notification delivery failed for good') ? found : undefined;
      },
      30000,
      () => `a warning for the last attempt of ${id}`,
    );
    expect(lines.map((l) => [l.level, l.msg, l.attempt, l.statusCode])).toEqual([
      [30, 'notification attempt failed; will retry', 1, 503],
      [30, 'notification attempt failed; will retry', 2, 503],
      [40, 'notification delivery failed for good', 3, 503],
    ]);
    expect(lines[0]).toMatchObject({ kind: 'webhook', event: 'sale.paid', host: new URL(receiver.url).host });
    expect(output()).not.toContain('merchant-secret');
    expect(output()).not.toContain('private-path');
  });
});
