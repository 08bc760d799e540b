import { readFileSync } from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_LIMITS } from '../../src/events/stream-writer.js';
import { createMerchant } from '../support/factories.js';
import { recordFact, saleWebhookBody } from '../support/notifications.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { waitUntil } from '../support/wait.js';

// the facts are recorded through this in-process server; the streams are served by a gateway of their own,
// whose memory is measured alone
let server: TestServer;
let gateway: ChildServer;
const METRICS_TOKEN = 'stream-bounds-metrics-token';

beforeAll(async () => {
  server = await startServer({ workers: false });
  gateway = await spawnGateway(['serve', '--no-worker'], {
    DATABASE_URL: server.databaseUrl,
    DATA_DIR: server.env.DATA_DIR!,
    METRICS_TOKEN,
  });
});
afterAll(async () => {
  await gateway?.stop();
  await server?.close();
});

const rssMb = () => {
  const status = readFileSync(`/proc/${gateway.process.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
};
const metric = async (name: string) => {
  const res = await fetch(`${gateway.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await res.text();
  return [...text.matchAll(new RegExp(`^${name}(?:{[^}]*})? (\\d+)$`, 'gm'))].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
};

/** A stream client that reads nothing until told to; then it reads what reached it, until the server closes. */
interface StalledReader {
  closed: Promise<void>;
  /** Starts reading: the complete events that had arrived, and whether the server had cut the stream. */
  drain(): Promise<{ ids: string[] }>;
}

function stalledReader(url: string, headers: Record<string, string>): Promise<StalledReader> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      res.pause();
      let text = '';
      const closed = new Promise<void>((done) => {
        res.on('close', done);
        res.on('error', () => done());
        res.socket.on('close', () => done());
      });
      resolve({
        closed,
        async drain() {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.resume();
          await closed;
          // a real SSE client keeps only complete events (each ends with a blank line)
          const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
          const ids = [...complete.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!);
          return { ids };
        },
      });
    });
    req.on('error', reject);
  });
}

const cuts = () => metric('gateway_event_streams_cut_total');

describe('event streams whose readers do not read', () => {
  it('100 stalled streams are cut and counted while 1,000 events of 10 KB fan out; RSS stays bounded; a reader that resumes misses nothing', async () => {
    const m = await createMerchant(server);
    const url = `${gateway.url}/api/events/stream`;
    const cutsBefore = await cuts();
    const rssBefore = rssMb();

    const readers = await Promise.all(Array.from({ length: 100 }, () => stalledReader(url, m.keys)));
    let closedCount = 0;
    for (const r of readers) void r.closed.then(() => closedCount++);

    const ids: string[] = [];
    let rssPeak = rssBefore;
    for (let i = 0; i < 1000; i++) {
      const body = { ...saleWebhookBody(m.accountId, 'PENDENTE'), note: 'x'.repeat(10_000) };
      ids.push(await recordFact(server, m.accountId, 'sale.pending', { body }));
      if (i % 20 === 0) rssPeak = Math.max(rssPeak, rssMb());
    }

    // every stalled stream is cut: by its unsent bytes, or by how long it could not write
    await waitUntil(
      async () => (await cuts()) - cutsBefore >= 100,
      STREAM_LIMITS.maxStallMs + 20_000,
      () => 'every stream cut',
    );
    rssPeak = Math.max(rssPeak, rssMb());
    const growthMb = rssPeak - rssBefore;
    console.log(
      `stalled streams: RSS +${growthMb.toFixed(0)} MB at most; cuts ${(await cuts()) - cutsBefore}`,
    );
    expect((await cuts()) - cutsBefore).toBe(100);
    // each stream holds at most its bound in this process (plus one batch of events)
    expect(growthMb).toBeLessThan((100 * STREAM_LIMITS.maxUnsentBytes) / 2 ** 20 + 50);

    // the clients see the end of the stream once they read; one resumes from the last complete event
    const got = await readers[0]!.drain();
    expect(got.ids.length).toBeLessThan(1000);
    expect(got.ids).toEqual(ids.slice(0, got.ids.length));
    await Promise.all(readers.slice(1).map((r) => r.drain()));
    expect(closedCount).toBe(100);

    // a reader cut before one whole event reached it resumes after the first (a slow run saw that)
    const expected = got.ids.length ? ids : ids.slice(1);
    const resumed = await openSse(url, { ...m.keys, 'last-event-id': got.ids.at(-1) ?? ids[0]! });
    try {
      const rest = await resumed.waitFor(expected.length - got.ids.length, 60_000);
      expect([...got.ids, ...rest.map((e) => e.id)]).toEqual(expected);
    } finally {
      resumed.close();
    }
  }, 180_000);
});
