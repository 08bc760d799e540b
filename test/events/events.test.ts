import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveTo, sandboxSale } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { recordFact } from '../support/notifications.js';
import { BASE_URL } from '../support/pg.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { createWebhook } from '../support/webhooks.js';

interface ApiEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}
interface EventPage {
  data: ApiEvent[];
  nextCursor: string | null;
}

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const list = (m: TestMerchant, query = '') =>
  call<EventPage>('GET', `${server.url}/api/events${query}`, { headers: m.keys });

describe('GET /api/events', () => {
  it("gives each fact's event id and exactly the bytes its webhook deliveries carried", async () => {
    const m = await createMerchant(server);
    await createWebhook(server, m, `${receiver.url}/events-${m.accountId}`);
    const sale = await sandboxSale(server, m);
    expect((await moveTo(server, m, sale.id, 'PAGO')).status).toBe(200);
    await expect
      .poll(() => receiver.received.filter((r) => r.path === `/events-${m.accountId}`).length)
      .toBe(2);
    const delivered = receiver.received.filter((r) => r.path === `/events-${m.accountId}`);
    const res = await list(m);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e) => e.type)).toEqual(['sale.paid', 'sale.pending']);
    for (const event of res.body.data) {
      const delivery = delivered.find((r) => r.headers['x-service-event-id'] === event.id)!;
      expect(delivery.headers['x-service-event-type']).toBe(event.type);
      // the data is the delivery's body to the byte: the response splices the stored text in
      expect(res.text).toContain(`"data":${delivery.body.toString('utf8')}`);
      expect(event.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const one = await call<ApiEvent>('GET', `${server.url}/api/events/${event.id}`, { headers: m.keys });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(event);
      expect(one.text.endsWith(`"data":${delivery.body.toString('utf8')}}`)).toBe(true);
    }
  });

  it('has events whether or not a webhook selected them, never webhook tests, never another account’s', async () => {
    const m = await createMerchant(server);
    const other = await createMerchant(server, 'Other');
    const id = await recordFact(server, m.accountId, 'withdrawal.completed');
    const foreign = await recordFact(server, other.accountId, 'sale.paid');
    const hook = await createWebhook(server, m, `${receiver.url}/test-${m.accountId}`);
    const test = await call('POST', `${server.url}/api/webhook/${hook.id}/test`, { headers: m.panel });
    expect(test.status).toBe(202);
    const res = await list(m);
    expect(res.body.data.map((e) => e.id)).toEqual([id]);
    expect((await call('GET', `${server.url}/api/events/${foreign}`, { headers: m.keys })).status).toBe(404);
    const unknown = await call('GET', `${server.url}/api/events/not-a-uuid`, { headers: m.keys });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'Event not found' },
    });
  });

  it('filters by type and time, pages with a cursor without gaps or repeats, and refuses bad filters (shape A)', async () => {
    const m = await createMerchant(server);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      ids.push(await recordFact(server, m.accountId, i % 2 === 0 ? 'sale.paid' : 'withdrawal.pending'));
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: EventPage } = await list(
        m,
        `?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(7);
      seen.push(...res.body.data.map((e) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const paid = await list(m, '?type=sale.paid&limit=100');
    expect(paid.body.data).toHaveLength(13);
    const both = await list(m, '?type=sale.paid,withdrawal.pending&limit=100');
    expect(both.body.data).toHaveLength(25);
    const future = await list(m, '?since=2999-01-01');
    expect(future.body.data).toEqual([]);
    const past = await list(m, '?until=2000-01-01T00:00:00Z');
    expect(past.body.data).toEqual([]);
    const today = await list(m, `?since=2000-01-01&until=2999-12-31T00:00:00Z&limit=100`);
    expect(today.body.data).toHaveLength(25);
    // an event's own createdAt given back as a bound includes it, either way (the clock keeps microseconds)
    const all = (await list(m, '?limit=100')).body.data as { id: string; createdAt: string }[];
    for (const e of [all[0]!, all[12]!]) {
      expect((await list(m, `?until=${e.createdAt}&limit=100`)).body.data.map((x) => x.id)).toContain(e.id);
      expect((await list(m, `?since=${e.createdAt}&limit=100`)).body.data.map((x) => x.id)).toContain(e.id);
    }

    for (const bad of ['?type=sale.nope', '?limit=0', '?limit=101', '?since=2026-02-30', '?cursor=zzz']) {
      const res = await list(m, bad);
      expect(res.status, bad).toBe(400);
      expect(res.body, bad).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    const noKey = await call('GET', `${server.url}/api/events`);
    expect(noKey.status).toBe(401);
  });
});

describe('GET /api/events/stream', () => {
  it('sends new events live, only the account’s and only the types asked for', async () => {
    const m = await createMerchant(server);
    const other = await createMerchant(server, 'Other');
    const stream = await openSse(
      `${server.url}/api/events/stream?type=sale.paid,withdrawal.completed`,
      m.keys,
    );
    try {
      expect(stream.status).toBe(200);
      expect(String(stream.headers['content-type'])).toMatch(/^text\/event-stream/);
      const a = await recordFact(server, m.accountId, 'sale.paid');
      await recordFact(server, other.accountId, 'sale.paid');
      await recordFact(server, m.accountId, 'sale.pending');
      const b = await recordFact(server, m.accountId, 'withdrawal.completed');
      const got = await stream.waitFor(2);
      expect(got.map((e) => [e.id, e.event])).toEqual([
        [a, 'sale.paid'],
        [b, 'withdrawal.completed'],
      ]);
      const page = await list(m, '?limit=100');
      for (const e of got) {
        expect(page.text).toContain(`"id":"${e.id}","type":"${e.event}"`);
        expect(page.text).toContain(`"data":${e.data}`);
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(stream.events).toHaveLength(2);
    } finally {
      stream.close();
    }
  });

  it('resumes after a dropped connection with Last-Event-ID: every missed event, oldest first, then live', async () => {
    const m = await createMerchant(server);
    const first = await openSse(`${server.url}/api/events/stream`, m.keys);
    const before = await recordFact(server, m.accountId, 'sale.pending');
    const [seen] = await first.waitFor(1);
    expect(seen!.id).toBe(before);
    first.close();

    const missed: string[] = [];
    for (let i = 0; i < 30; i++) missed.push(await recordFact(server, m.accountId, 'sale.paid'));
    const again = await openSse(`${server.url}/api/events/stream`, { ...m.keys, 'last-event-id': seen!.id });
    try {
      await again.waitFor(30);
      const live = await recordFact(server, m.accountId, 'sale.refunded');
      const all = await again.waitFor(31);
      expect(all.map((e) => e.id)).toEqual([...missed, live]);
    } finally {
      again.close();
    }
  });

  it('orders the backlog by transaction as a number: 99 before 100 (as text, "100" came first)', async () => {
    const m = await createMerchant(server);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await recordFact(server, m.accountId, 'sale.paid'));
    // their transactions moved back to just below and past a power of ten, long final
    for (const [i, id] of ids.entries()) {
      await server.runtime.platform.db.query(
        'UPDATE notification_events SET txid = $2::text::xid8 WHERE id = $1',
        [id, String(98 + i)],
      );
    }
    const again = await openSse(`${server.url}/api/events/stream`, { ...m.keys, 'last-event-id': ids[0]! });
    try {
      const got = await again.waitFor(2);
      expect(got.map((e) => e.id)).toEqual([ids[1], ids[2]]);
    } finally {
      again.close();
    }
  });

  it('ends at once when its key is revoked, expires or its source leaves the allow-list; nothing is sent after', async () => {
    const m = await createMerchant(server);
    const newKey = async (body: object = {}) => {
      const made = await call<{ id: number; publicKey: string; privateKey: string }>(
        'POST',
        `${server.url}/api/credentials`,
        { headers: m.panel, body },
      );
      expect(made.status, made.text).toBe(201);
      return {
        id: made.body.id,
        keys: { 'x-api-public-key': made.body.publicKey, 'x-api-private-key': made.body.privateKey },
      };
    };
    const within = (ms: number, what: Promise<void>) =>
      Promise.race([what.then(() => 'ended'), new Promise((r) => setTimeout(() => r('still open'), ms))]);

    // revoked
    const revoked = await newKey();
    const first = await openSse(`${server.url}/api/events/stream`, revoked.keys);
    const before = await recordFact(server, m.accountId, 'sale.pending');
    expect((await first.waitFor(1))[0]!.id).toBe(before);
    const del = await call('DELETE', `${server.url}/api/credentials/${revoked.id}`, { headers: m.panel });
    expect(del.status).toBe(204);
    expect(await within(5_000, first.ended)).toBe('ended');
    await recordFact(server, m.accountId, 'sale.paid');
    expect(first.events).toHaveLength(1);
    expect(first.comments).toContain('access revoked');

    // expired
    const expiring = await newKey({ expiresAt: new Date(Date.now() + 3_000).toISOString() });
    const second = await openSse(`${server.url}/api/events/stream`, expiring.keys);
    expect(second.status).toBe(200);
    expect(await within(10_000, second.ended)).toBe('ended');
    expect((await call('GET', `${server.url}/api/events`, { headers: expiring.keys })).status).toBe(401);

    // the allow-list changed to leave this source out; the stream of a key that still may goes on
    const third = await openSse(`${server.url}/api/events/stream`, m.keys);
    const ips = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: m.panel,
      body: { ips: ['203.0.113.7'] },
    });
    expect(ips.status, ips.text).toBe(200);
    expect(await within(5_000, third.ended)).toBe('ended');
    const emptied = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: m.panel,
      body: { ips: [] },
    });
    expect(emptied.status, emptied.text).toBe(200);
    const fourth = await openSse(`${server.url}/api/events/stream`, m.keys);
    try {
      await (await newKey()).id; // another change of keys: this stream's key still opens it
      const after = await recordFact(server, m.accountId, 'sale.paid');
      expect((await fourth.waitFor(1))[0]!.id).toBe(after);
      expect(await within(300, fourth.ended)).toBe('still open');
    } finally {
      fourth.close();
    }
  });

  it('is not held back by a transaction left open in another database of the same server', async () => {
    const m = await createMerchant(server);
    const elsewhere = new pg.Client({ connectionString: BASE_URL });
    await elsewhere.connect();
    const stream = await openSse(`${server.url}/api/events/stream`, m.keys);
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()'); // it holds a transaction id, as a writer would
      const id = await recordFact(server, m.accountId, 'sale.paid');
      const [got] = await stream.waitFor(1);
      expect(got!.id).toBe(id);
    } finally {
      stream.close();
      await elsewhere.query('ROLLBACK');
      await elsewhere.end();
    }
  });

  it('refuses a Last-Event-ID that is no event id, and one of another account (shape A)', async () => {
    const m = await createMerchant(server);
    const other = await createMerchant(server, 'Other');
    const bad = await call('GET', `${server.url}/api/events/stream`, {
      headers: { ...m.keys, 'last-event-id': 'nope' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const unknownType = await call('GET', `${server.url}/api/events/stream?type=x`, { headers: m.keys });
    expect(unknownType.status).toBe(400);
    // another account's event id is no position in this account's stream: resumed from its time instead
    const foreign = await recordFact(server, other.accountId, 'sale.paid');
    const mine = await recordFact(server, m.accountId, 'sale.paid');
    const stream = await openSse(`${server.url}/api/events/stream`, { ...m.keys, 'last-event-id': foreign });
    try {
      const [got] = await stream.waitFor(1);
      expect(got!.id).toBe(mine);
    } finally {
      stream.close();
    }
  });
});
