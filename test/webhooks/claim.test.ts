import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue, recordAttempts } from '../../src/webhooks/deliveries.data.js';
import { fanOutPending } from '../../src/webhooks/fanout.js';
import { sweep } from '../../src/webhooks/sweeper.js';
import { createMerchant } from '../support/factories.js';
import { recordFact } from '../support/notifications.js';
import { startServer, type TestServer } from '../support/server.js';
import { createWebhook } from '../support/webhooks.js';

let server: TestServer;
/** Rooms in the tests about hosts: accounts unbounded. */
const anyAccount = { accountHolding: new Map<number, number>(), heldPerAccount: 1_000_000 };
/** Room for 16 attempts per host, 8 in flight, any account. */
const roomFor = () => ({
  ...anyAccount,
  holding: new Map<string, number>(),
  heldPerHost: 16,
  perHost: 8,
  roundMs: 1000,
  marginMs: 500,
});

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
    for (let i = 0; i < 20; i++) await recordFact(server, m.accountId, 'sale.paid');
    const { db } = server.runtime.platform;
    expect(await fanOutPending(db, 100)).toEqual({ facts: 20, deliveries: 20, claimed: [] });

    const claimed = await claimDue(db, {
      limit: 100,
      skipHosts: [],
      skipAccounts: [],
      ...anyAccount,
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
        skipAccounts: [],
        ...anyAccount,
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
    expect(await fanOutPending(db, 100)).toEqual({ facts: 0, deliveries: 0, claimed: [] });
    const rows = await db.query<{ event_id: string }>(
      `SELECT d.event_id FROM notification_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE w.account_id = $1`,
      [m.accountId],
    );
    expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
  });

  it("claims first attempts within each host's room as it fans out, and leaves the rest due", async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.5:9/first', ['sale.paid']);
    const other = await createMerchant(server);
    await createWebhook(server, other, 'http://127.0.0.6:9/first', ['*']);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await recordFact(server, m.accountId, 'sale.paid'));
    for (let i = 0; i < 3; i++) await recordFact(server, other.accountId, 'sale.paid');
    const { db } = server.runtime.platform;
    const out = await fanOutPending(db, 100, {
      ...anyAccount,
      // 127.0.0.5:9 already holds 2 of its 4; 127.0.0.6:9 holds none
      holding: new Map([['127.0.0.5:9', 2]]),
      heldPerHost: 4,
      perHost: 2,
      roundMs: 1000,
      marginMs: 500,
    });
    expect(out.facts).toBe(9);
    expect(out.deliveries).toBe(9);
    const byHost = (host: string) => out.claimed.filter((c) => c.targetHost === host);
    // room for 2 of the first merchant's 6, the oldest; all 3 of the other's
    expect(byHost('127.0.0.5:9').map((c) => c.eventId)).toEqual(ids.slice(0, 2));
    expect(byHost('127.0.0.6:9')).toHaveLength(3);
    for (const c of out.claimed) {
      expect(c).toMatchObject({ kind: 'webhook', attempt: 1, redelivery: false, webhookDeleted: false });
      expect(JSON.parse(c.webhookBody)).toBeTypeOf('object');
      expect(c.webhookUrl).toMatch(/^http:\/\/127\.0\.0\.[56]:9\/first$/);
    }
    const rows = await db.query<{ host: string; attempts: number; ticket: string | null; ms: number | null }>(
      `SELECT target_host AS host, attempts, ticket,
              (extract(epoch FROM lease_until - last_attempt_at) * 1000)::int AS ms
         FROM notification_deliveries WHERE target_host IN ('127.0.0.5:9', '127.0.0.6:9')
          AND event_id = ANY (SELECT id FROM notification_events WHERE account_id IN ($1, $2))
        ORDER BY target_host, id`,
      [m.accountId, other.accountId],
    );
    // claimed: positions 3 and 4 of 127.0.0.5:9 (round 2), 1..3 of 127.0.0.6:9 (rounds 1, 1, 2)
    expect(rows.map((r) => [r.host, r.attempts, r.ticket === null, r.ms])).toEqual([
      ['127.0.0.5:9', 1, true, 2500],
      ['127.0.0.5:9', 1, true, 2500],
      ['127.0.0.5:9', 0, false, null],
      ['127.0.0.5:9', 0, false, null],
      ['127.0.0.5:9', 0, false, null],
      ['127.0.0.5:9', 0, false, null],
      ['127.0.0.6:9', 1, true, 1500],
      ['127.0.0.6:9', 1, true, 1500],
      ['127.0.0.6:9', 1, true, 2500],
    ]);
  });

  it('gives a host with attempts already due no fresh claim: its new deliveries queue behind the old ones', async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.7:9/backlog', ['sale.paid']);
    const other = await createMerchant(server);
    await createWebhook(server, other, 'http://127.0.0.8:9/backlog', ['sale.paid']);
    const { db } = server.runtime.platform;
    const room = roomFor();
    // a backlog: fanned out when the host had no room, so left due
    const old: string[] = [];
    for (let i = 0; i < 3; i++) old.push(await recordFact(server, m.accountId, 'sale.paid'));
    expect((await fanOutPending(db, 100)).claimed).toEqual([]);
    // newer facts, now with room: the backlogged host gets no claim, the other host does
    const fresh: string[] = [];
    for (let i = 0; i < 2; i++) fresh.push(await recordFact(server, m.accountId, 'sale.paid'));
    await recordFact(server, other.accountId, 'sale.paid');
    const out = await fanOutPending(db, 100, room);
    expect(out.claimed.map((c) => c.targetHost)).toEqual(['127.0.0.8:9']);
    // claims then serve that host oldest first: the backlog before the fresh facts
    const claimed = await claimDue(db, { ...room, limit: 1000, skipHosts: [], skipAccounts: [] });
    const mine = claimed.filter((c) => c.targetHost === '127.0.0.7:9').map((c) => c.eventId);
    expect(mine).toEqual([...old, ...fresh]);
  });

  it('fan-out claims at most maxClaims first attempts in all, oldest first, when facts have several targets', async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.3:9/a', ['sale.paid']);
    await createWebhook(server, m, 'http://127.0.0.4:9/b', ['sale.paid']);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await recordFact(server, m.accountId, 'sale.paid'));
    const room = roomFor();
    const out = await fanOutPending(server.runtime.platform.db, 100, room, 0, 3);
    expect(out).toMatchObject({ facts: 3, deliveries: 6 });
    expect(out.claimed).toHaveLength(3);
    expect(new Set(out.claimed.map((c) => c.eventId))).toEqual(new Set(ids.slice(0, 2)));
  });

  it("takes only an account's room over all its hosts, in fan-out and in claims, and skips accounts sitting out", async () => {
    const m = await createMerchant(server);
    const other = await createMerchant(server);
    // 4 hosts for m, each with room to spare: the account's room is what binds
    for (let h = 0; h < 4; h++) await createWebhook(server, m, `http://127.0.1.${h}:9/acct`, ['sale.paid']);
    await createWebhook(server, other, 'http://127.0.2.1:9/acct', ['sale.paid']);
    for (let i = 0; i < 5; i++) await recordFact(server, m.accountId, 'sale.paid');
    for (let i = 0; i < 2; i++) await recordFact(server, other.accountId, 'sale.paid');
    const { db } = server.runtime.platform;
    const room = { holding: new Map(), heldPerHost: 100, perHost: 8, roundMs: 1000, marginMs: 500 };
    const out = await fanOutPending(db, 100, {
      ...room,
      accountHolding: new Map([[m.accountId, 3]]),
      heldPerAccount: 10,
    });
    expect(out).toMatchObject({ facts: 7, deliveries: 22 });
    const byAccount = (list: { accountId: number }[], id: number) => list.filter((c) => c.accountId === id);
    // m holds 3 of its 10: 7 of its 20 first attempts, the oldest facts first; the other takes both of its own
    expect(byAccount(out.claimed, m.accountId)).toHaveLength(7);
    expect(byAccount(out.claimed, other.accountId)).toHaveLength(2);

    await db.query(
      `UPDATE notification_deliveries SET next_attempt_at = now() - interval '1 second'
                     WHERE account_id = ANY ($1::bigint[]) AND ticket IS NOT NULL`,
      [[m.accountId, other.accountId]],
    );
    // 13 of m's are due: with 5 held of 8 it takes 3
    const claimed = await claimDue(db, {
      ...room,
      limit: 100,
      skipHosts: [],
      skipAccounts: [],
      accountHolding: new Map([[m.accountId, 5]]),
      heldPerAccount: 8,
    });
    expect(byAccount(claimed, m.accountId)).toHaveLength(3);
    // sitting out: nothing of m, however much room its hosts have
    const sittingOut = await claimDue(db, {
      ...room,
      limit: 100,
      skipHosts: [],
      skipAccounts: [m.accountId],
      accountHolding: new Map(),
      heldPerAccount: 8,
    });
    expect(byAccount(sittingOut, m.accountId)).toHaveLength(0);
    const [due] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_deliveries WHERE account_id = $1 AND ticket IS NOT NULL`,
      [m.accountId],
    );
    expect(due!.n).toBe(10);
  });

  it('an outcome written after the sweeper logged its attempt as interrupted leaves the rest of its batch intact', async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.1:9/late', ['sale.paid']);
    await recordFact(server, m.accountId, 'sale.paid');
    await recordFact(server, m.accountId, 'sale.paid');
    const { db } = server.runtime.platform;
    await fanOutPending(db, 100);
    const [late, onTime] = await claimDue(db, {
      limit: 2,
      skipHosts: [],
      skipAccounts: [],
      ...anyAccount,
      holding: new Map(),
      heldPerHost: 16,
      perHost: 8,
      roundMs: 1000,
      marginMs: 500,
    });
    // what the sweeper does when the first attempt's lease runs out before its outcome is written
    await db.query(
      `INSERT INTO notification_attempts (delivery_id, attempt, event_type, url, redelivery, error, duration_ms)
       VALUES ($1, 1, 'sale.paid', 'http://127.0.0.1:9/late', false, 'interrupted', 0)`,
      [late!.id],
    );
    await db.query(
      `UPDATE notification_deliveries SET ticket = gen_random_uuid(), lease_until = NULL WHERE id = $1`,
      [late!.id],
    );
    const outcome = (id: number) => ({
      record: {
        deliveryId: id,
        attempt: 1,
        eventType: 'sale.paid',
        url: 'http://127.0.0.1:9/late',
        redelivery: false,
        statusCode: 200,
        error: null,
        durationMs: 5,
      },
      next: { status: 'DELIVERED' as const },
    });
    await recordAttempts(db, [outcome(late!.id), outcome(onTime!.id)]);
    const rows = await db.query<{ id: string; status: string }>(
      'SELECT id, status FROM notification_deliveries WHERE id = ANY($1::bigint[]) ORDER BY id',
      [[late!.id, onTime!.id]],
    );
    expect(Object.fromEntries(rows.map((r) => [Number(r.id), r.status]))).toEqual({
      [late!.id]: 'PENDING',
      [onTime!.id]: 'DELIVERED',
    });
  });

  it('the sweeper fans out facts left in the outbox for 10 s (none of their attempts claimed), and no newer ones', async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, 'http://127.0.0.1:9/sweep', ['sale.paid']);
    const old = await recordFact(server, m.accountId, 'sale.paid');
    const recent = await recordFact(server, m.accountId, 'sale.paid');
    const { db } = server.runtime.platform;
    await db.query(
      `UPDATE notification_outbox SET created_at = now() - interval '11 seconds' WHERE event_id = $1`,
      [old],
    );
    // only these two facts wait (earlier tests here fanned out theirs), and the attempts earlier tests
    // claimed are settled, so their leases cannot run out into this sweep's count on a slow machine
    await db.query(`UPDATE notification_deliveries SET status = 'FAILED' WHERE status = 'PENDING'`);
    expect(
      (await db.query<{ event_id: string }>('SELECT event_id FROM notification_outbox'))
        .map((r) => r.event_id)
        .sort(),
    ).toEqual([old, recent].sort());

    expect(await sweep(db, db)).toBe(1);
    const rows = await db.query<{ event_id: string; attempts: number; due: boolean }>(
      `SELECT event_id, attempts, ticket IS NOT NULL AND next_attempt_at <= now() AS due
         FROM notification_deliveries WHERE event_id IN ($1, $2)`,
      [old, recent],
    );
    expect(rows).toEqual([{ event_id: old, attempts: 0, due: true }]);
    const waiting = await db.query<{ event_id: string }>('SELECT event_id FROM notification_outbox');
    expect(waiting).toEqual([{ event_id: recent }]);
  });
});
