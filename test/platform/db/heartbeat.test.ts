/**
 * The heartbeat tells a silent host from a slow one: a connect that times out once on a busy machine must not
 * cut every connection to a host that is still there, nor may a process whose own event loop was held up; a host
 * that stops answering altogether is reported.
 */
import { afterEach, expect, it } from 'vitest';
import { openDb } from '../../../src/platform/db/db.js';
import { Heartbeat, type Watched } from '../../../src/platform/db/heartbeat.js';
import type { HostLocator } from '../../../src/platform/db/host-locator.js';
import { type HostList, parseHostList } from '../../../src/platform/db/hosts.js';
import { urlFor } from '../../support/pg.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';

let proxy: TcpProxy | undefined;
let heartbeat: Heartbeat | undefined;
afterEach(async () => {
  heartbeat?.stop();
  await proxy?.close();
});

/** A heartbeat on the local server through a relay; `silences` holds when each report came. */
async function watchThroughRelay(): Promise<{ relay: TcpProxy; start(): void; silences: number[] }> {
  const url = new URL(urlFor('postgres'));
  const relay = await startTcpProxy(Number(url.port || 5432));
  proxy = relay;
  url.port = String(relay.port);
  const list: HostList = parseHostList(url.toString(), 'read-write');
  const silences: number[] = [];
  const watched: Watched = {
    target: list.hosts[0]!,
    silent: () => silences.push(Date.now()),
  };
  return {
    relay,
    silences,
    start: () => {
      heartbeat = new Heartbeat(watched, list, 'heartbeat-test');
    },
  };
}

it('keeps a host whose new connections go unanswered for 3 s (longer than one connect may wait)', async () => {
  const { relay, start, silences } = await watchThroughRelay();
  relay.holdNew(3_000);
  start();
  await new Promise((r) => setTimeout(r, 8_000));
  expect(silences).toEqual([]);
});

it('reports a host that stops answering, and not before its last answer is 5 s old', async () => {
  const { relay, start, silences } = await watchThroughRelay();
  start();
  await new Promise((r) => setTimeout(r, 2_500)); // it has answered by now
  const dark = Date.now();
  relay.blackhole();
  await expect.poll(() => silences.length, { timeout: 15_000, interval: 100 }).toBe(1);
  expect(silences[0]! - dark).toBeGreaterThanOrEqual(3_000);
});

it('keeps its host while the process itself is held up for 7 s (an answer left unread is not silence)', async () => {
  const { start, silences } = await watchThroughRelay();
  start();
  await new Promise((r) => setTimeout(r, 2_500)); // it has answered by now
  // the event loop blocked, as a process's start evaluating its modules on a busy machine holds it
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 7_000);
  await new Promise((r) => setTimeout(r, 4_000));
  expect(silences).toEqual([]);
});

it('cuts what waits on a silent host though a failed statement started the search (it beats on while searching)', async () => {
  const url = new URL(urlFor('postgres'));
  const relay = await startTcpProxy(Number(url.port || 5432));
  proxy = relay;
  url.port = String(relay.port);
  const db = openDb({ databaseUrl: url.toString(), failoverTimeoutMs: 60_000 });
  try {
    await db.locate();
    db.startHeartbeat();
    const waiting = db.tx(async (tx) => {
      await tx.query('SELECT 1');
      relay.blackhole();
      // as a statement's lost connection does (the host is not known to be silent yet): a search, nothing cut
      (db as unknown as { locator: HostLocator }).locator.lost();
      return tx.query('SELECT 2');
    });
    const outcome = await Promise.race([
      waiting.then(
        () => 'answered',
        (err: Error) => err.message,
      ),
      new Promise((r) => setTimeout(() => r('still waiting after 20 s'), 20_000)),
    ]);
    expect(outcome).toMatch(/^Connection terminated/);
    expect(db.available).toBe(false); // the search goes on: the host is still silent
  } finally {
    await db.close();
  }
});
