import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway, verifyWebhook } from '../../sdk/src/index.js';
import { runGateway } from '../support/cli.js';
import { call } from '../support/http.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';
import { type DisputeBody, decide, disputeMerchant, openDispute, paidSale } from './fixtures.js';

let server: TestServer;
let all: Receiver;
let chosen: Receiver;

beforeAll(async () => {
  server = await startServer();
  all = await startReceiver();
  chosen = await startReceiver();
});
afterAll(async () => {
  await all?.close();
  await chosen?.close();
  await server?.close();
});

describe('dispute events', () => {
  it('dispute.* go to webhooks that name them, never to "*"; the events API holds them with the delivered body', async () => {
    const m = await disputeMerchant(server);
    await createWebhook(server, m, all.url, ['*']);
    const hook = await createWebhook(server, m, chosen.url, ['dispute.opened', 'dispute.won']);
    const sale = await paidSale(server, m, 10000);
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'med' })).body;
    const won = (await decide(server, m, opened.id, 'won')).body;

    const got = await chosen.waitFor(2);
    const verified = got.map((r) =>
      verifyWebhook({ body: r.body, headers: r.headers as Record<string, string>, secret: hook.secret }),
    );
    expect(verified.map((v) => v.eventType)).toEqual(['dispute.opened', 'dispute.won']);
    expect(verified[0]!.payload).toEqual({ ...opened, type: 'DISPUTE', eventType: 'dispute.opened' });
    expect(verified[1]!.payload).toEqual({ ...won, type: 'DISPUTE', eventType: 'dispute.won' });

    // "*" got the sale's facts (paid, chargeback, paid again) and no dispute fact
    await all.waitFor(3);
    await waitUntil(async () => {
      const [row] = await server.runtime.platform.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM notification_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE w.account_id = $1 AND d.status = 'PENDING'`,
        [m.accountId],
      );
      return row!.n === 0;
    });
    expect(all.received.map((r) => r.headers['x-service-event-type'])).not.toContain('dispute.opened');
    expect(all.received.map((r) => r.headers['x-service-event-type'])).not.toContain('dispute.won');

    const events = await call<{ data: { id: string; type: string; data: unknown }[] }>(
      'GET',
      `${server.url}/api/events?type=dispute.opened,dispute.won,dispute.lost`,
      { headers: m.keys },
    );
    expect(events.status, events.text).toBe(200);
    expect(events.body.data.map((e) => e.type)).toEqual(['dispute.won', 'dispute.opened']);
    expect(events.body.data[1]!.data).toEqual({ ...opened, type: 'DISPUTE', eventType: 'dispute.opened' });
    expect(events.body.data[1]!.id).toBe(got[0]!.headers['x-service-event-id']);
  });

  it('the SDK lists and retrieves disputes', async () => {
    const m = await disputeMerchant(server);
    const sale = await paidSale(server, m, 10000);
    const opened = (await openDispute(server, m, sale.uuid, { kind: 'med' })).body;
    const gw = new Gateway({ baseUrl: server.url, publicKey: m.publicKey, privateKey: m.privateKey });
    const page = await gw.disputes.list({ status: 'needs_response' });
    expect(page.data.map((d) => d.id)).toEqual([opened.id]);
    const one: DisputeBody = await gw.disputes.retrieve(opened.id);
    expect(one).toEqual(opened);
    expect((await gw.disputes.list({ status: 'won' })).data).toEqual([]);
  });

  it('gateway trigger dispute.opened --sale ID opens a dispute of the caller’s own sale; won and lost decide it', async () => {
    const m = await disputeMerchant(server);
    const env = {
      GATEWAY_URL: server.url,
      GATEWAY_PUBLIC_KEY: m.publicKey,
      GATEWAY_PRIVATE_KEY: m.privateKey,
    };
    const sale = await paidSale(server, m, 10000);
    const r = await runGateway(['trigger', 'dispute.opened', '--sale', sale.uuid, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const made = JSON.parse(r.stdout) as { event: string; sale: string; dispute: string };
    expect(made).toEqual({ event: 'dispute.opened', sale: sale.uuid, dispute: expect.any(String) });
    const dispute = await call<DisputeBody>('GET', `${server.url}/api/disputes/${made.dispute}`, {
      headers: m.keys,
    });
    expect(dispute.body).toMatchObject({ saleId: sale.uuid, kind: 'med', status: 'needs_response' });

    for (const [event, status] of [
      ['dispute.won', 'won'],
      ['dispute.lost', 'lost'],
    ] as const) {
      const out = await runGateway(['trigger', event, '--json'], env);
      expect(out.code, out.stderr).toBe(0);
      const { dispute: id } = JSON.parse(out.stdout) as { dispute: string };
      const d = await call<DisputeBody>('GET', `${server.url}/api/disputes/${id}`, { headers: m.keys });
      expect(d.body.status).toBe(status);
    }

    // the sale's own open dispute is the one won or lost with --sale; opening a second is refused in one line
    const twice = await runGateway(['trigger', 'dispute.opened', '--sale', sale.uuid], env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(new RegExp(`has an open dispute already \\(${made.dispute}\\)`));
    const lost = await runGateway(['trigger', 'dispute.lost', '--sale', sale.uuid, '--json'], env);
    expect(lost.code, lost.stderr).toBe(0);
    expect(JSON.parse(lost.stdout)).toEqual({
      event: 'dispute.lost',
      sale: sale.uuid,
      dispute: made.dispute,
    });
    const decided = await call<DisputeBody>('GET', `${server.url}/api/disputes/${made.dispute}`, {
      headers: m.keys,
    });
    expect(decided.body.status).toBe('lost');
  });
});
