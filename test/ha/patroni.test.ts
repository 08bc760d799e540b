/**
 * High availability decided by Patroni: three PostgreSQL 15 nodes run by Patroni on etcd
 * (deploy/patroni/patroni.yml; synchronous_mode_strict, use_pg_rewind), a real `gateway serve` process naming
 * every node in DATABASE_URL, and clients sending cashouts and sale payments all along.
 * (a) The primary's host dies (Patroni and PostgreSQL SIGKILLed): Patroni promotes the synchronous standby,
 *     the gateway follows; everything answered 2xx is there once, nothing else was written, the ledger
 *     verifies, every fact is delivered.
 * (b) The old primary's host comes back: Patroni rewinds it and it follows the new primary, never a primary.
 * (c) A planned `patronictl switchover`: the time the gateway answers 503 is measured.
 * Run by `npm run test:ha` (vitest.ha.config.ts); ETCD_MEMBERS=3 runs etcd as three members. The same
 * cluster reached through PgBouncer: patroni-pgbouncer.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PatroniNode } from '../support/patroni.js';
import {
  type HaGateway,
  killPrimaryUnderLoad,
  startHaGateway,
  switchoverUnderLoad,
} from '../support/patroni-gateway.js';
import { waitUntil } from '../support/wait.js';

const ETCD_MEMBERS = Number(process.env.ETCD_MEMBERS ?? 1);

let ha: HaGateway;

beforeAll(async () => {
  ha = await startHaGateway({
    name: 'ha',
    etcdMembers: ETCD_MEMBERS,
    connect: async (cluster) => ({ env: { DATABASE_URL: cluster.url('gateway') } }),
  });
}, 180_000);

afterAll(async () => {
  await ha?.stop();
}, 120_000);

let killed: PatroniNode;

describe('a Patroni cluster with a synchronous standby (strict)', () => {
  it('promotes the synchronous standby when the primary host dies mid-burst, and the gateway follows, losing nothing acknowledged', async () => {
    killed = await killPrimaryUnderLoad(ha);
  });

  it("brings the old primary back as a standby of the new one by Patroni's rewind, never as a primary", async () => {
    const { cluster, figures } = ha;
    const leader = (await cluster.leader())!;
    const [{ timeline }] = (await leader.query<{ timeline: number }>(
      'SELECT timeline_id AS timeline FROM pg_control_checkpoint()',
    ))!;
    const startedAt = Date.now();
    killed.start();
    await waitUntil(
      async () => {
        const members = await cluster.members().catch(() => []);
        const me = members.find((m) => m.name === killed.name);
        const standby = await killed.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
        return (
          me !== undefined &&
          (me.role === 'replica' || me.role === 'sync_standby') &&
          me.state === 'running' &&
          me.timeline === timeline &&
          standby?.[0]?.standby === true
        );
      },
      120_000,
      () => `${killed.name} streaming from ${leader.name}:\n${killed.log().slice(-4000)}`,
    );
    figures.rejoinMs = Date.now() - startedAt;
    const log = killed.log();
    // Patroni compared its timeline and LSN with the new primary's before following it
    expect(log).toMatch(/Local timeline=\d+ lsn=/);
    figures.oldPrimaryRewound = /running pg_rewind from/.test(log)
      ? 'pg_rewind ran'
      : 'no divergence: followed without rewind';
    if (/running pg_rewind from/.test(log)) expect(log).toMatch(/pg_rewind exit code=0/);
    expect(ha.mostPrimaries()).toBe(1);
    // it holds every acknowledged write: the withdrawals it streams are the primary's
    const rows = await waitUntil(async () => {
      const [p] = (await leader.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM withdrawals',
        'gateway',
      ))!;
      const s = await killed.query<{ n: number }>('SELECT count(*)::int AS n FROM withdrawals', 'gateway');
      return s?.[0]?.n === p!.n && p!.n;
    }, 30_000);
    expect(rows).toBeGreaterThan(0);
  });

  it('answers 503 during a planned switchover until the new leader serves, and loses nothing', async () => {
    await switchoverUnderLoad(ha);
  });
});
