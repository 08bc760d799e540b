import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue } from '../../src/webhooks/deliveries.data.js';
import { fanOut, fanOutPending } from '../../src/webhooks/fanout.js';
import { createMerchant } from '../support/factories.js';
import { recordFact } from '../support/notifications.js';
import { startServer, type TestServer } from '../support/server.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;

// no workers: this file claims by hand
beforeAll(async () => {
  server = await startServer({ workers: false });
});
afterAll(async () => {
  await server?.close();
});

describe('claiming due attempts', () => {
  it("takes only a host's room and leases each attempt for the rounds it waits behind", async () => {
    const m = await createMerchant(server);
    // nothing listens there: this test never sends
    await createWebhook(server, m, 'http://127.0.0.1:9/claim', ['sale.paid']);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await recordFact(server, m.accountId, 'sale.paid'));
    const { db } = server.runtime.platform;
    expect(await fanOut(db, ids)).toBe(20);

    const claimed = await claimDue(db, {
      limit: 100,
      skipHosts: [],
      holding: new Map([['127.0.0.1:9', 3]]),
      heldPerHost: 16,
      perHost: 4,
      roundMs: 1000,
      marginMs: 500,
    });
    // 3 already held: room for 13, in queue order
    expect(claimed).toHaveLength(13);
    expect(claimed.map((c) => c.id)).toEqual([...claimed.map((c) => c.id)].sort((a, b) => a - b));
    const rows = await db.query<{ id: number; ms: number; attempts: number; ticket: string | null }>(
      `SELECT id, attempts, ticket,
              (extract(epoch FROM lease_until - last_attempt_at) * 1000)::int AS ms
         FROM notification_deliveries WHERE id = ANY ($1::bigint[]) ORDER BY id`,
      [claimed.map((c) => c.id)],
    );
    // positions 4..16 behind 4 slots: rounds 1, 2 ×4, 3 ×4, 4 ×4
    expect(rows.map((r) => r.ms)).toEqual([
      1500, 2500, 2500, 2500, 2500, 3500, 3500, 3500, 3500, 4500, 4500, 4500, 4500,
    ]);
    expect(rows.every((r) => r.attempts === 1 && r.ticket === null)).toBe(true);

    // a host that sits out takes nothing; the others are left due
    expect(
      await claimDue(db, {
        limit: 100,
        skipHosts: ['127.0.0.1:9'],
        holding: new Map(),
        heldPerHost: 16,
        perHost: 4,
        roundMs: 1000,
        marginMs: 500,
      }),
    ).toHaveLength(0);
    const [due] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_deliveries WHERE ticket IS NOT NULL AND status = 'PENDING'`,
    );
    expect(due!.n).toBe(7);
  });

  it('fans out pending facts oldest first, each once, when several fan-outs run at once', async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.1:9/pending', ['sale.paid']);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await recordFact(server, m.accountId, 'sale.paid'));
    const { db } = server.runtime.platform;
    const runs = await Promise.all([1, 2, 3].map(() => fanOutPending(db, 10)));
    const rest = await fanOutPending(db, 100);
    const all = [...runs, rest];
    expect(all.reduce((n, r) => n + r.facts, 0)).toBe(30);
    expect(all.reduce((n, r) => n + r.deliveries, 0)).toBe(30);
    expect(await fanOutPending(db, 100)).toEqual({ facts: 0, deliveries: 0 });
    const rows = await db.query<{ event_id: string }>(
      `SELECT d.event_id FROM notification_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE w.account_id = $1`,
      [m.accountId],
    );
    expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
  });
});
