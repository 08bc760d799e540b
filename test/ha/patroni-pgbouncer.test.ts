/**
 * The Patroni cluster of patroni.test.ts reached through PgBouncer in transaction mode, the first way
 * docs/deploy.md ("PgBouncer", "With Patroni") gives: a PgBouncer on each node in front of that node's own
 * PostgreSQL (deploy/pgbouncer/pgbouncer.ini as written, its server the local node), the gateway's
 * DATABASE_URL naming the three PgBouncers and DATABASE_DIRECT_URL the three nodes. The gateway's probes
 * through each PgBouncer read that node's `transaction_read_only`, so its pools use the PgBouncer in front of
 * the primary; nothing tells PgBouncer about Patroni. Under the same load as patroni.test.ts:
 * (a) a planned `patronictl switchover`: the old primary's PgBouncer stays up in front of a standby;
 * (b) the primary's host dies: its Patroni, PostgreSQL and PgBouncer SIGKILLed.
 * Each time every 2xx is stored once, nothing answered 500, every 503 is in its shape with Retry-After,
 * every fact is delivered, `ledger verify` (through PgBouncer) is clean, and the pools follow the primary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PatroniNode, SUPERUSER_PASSWORD } from '../support/patroni.js';
import {
  type HaGateway,
  killPrimaryUnderLoad,
  startHaGateway,
  switchoverUnderLoad,
} from '../support/patroni-gateway.js';
import { type PgBouncer, startPgBouncer } from '../support/pgbouncer.js';
import { waitUntil } from '../support/wait.js';

const ETCD_MEMBERS = Number(process.env.ETCD_MEMBERS ?? 1);
/** Each PgBouncer's server connections: fewer than the gateway's pools (20 + pg-boss's 4). */
const POOL_SIZE = 8;

let ha: HaGateway;
/** Each node's PgBouncer, by the node's name. */
const bouncers = new Map<string, PgBouncer>();

beforeAll(async () => {
  ha = await startHaGateway({
    name: 'ha-pgbouncer',
    etcdMembers: ETCD_MEMBERS,
    connect: async (cluster) => {
      for (const node of cluster.nodes) {
        bouncers.set(
          node.name,
          await startPgBouncer({
            server: { host: '127.0.0.1', port: node.pgPort },
            user: 'postgres',
            password: SUPERUSER_PASSWORD,
            poolSize: POOL_SIZE,
          }),
        );
      }
      const pgbs = cluster.nodes.map((n) => `127.0.0.1:${bouncers.get(n.name)!.port}`).join(',');
      return {
        env: {
          DATABASE_URL: `postgres://postgres:${SUPERUSER_PASSWORD}@${pgbs}/gateway`,
          DATABASE_DIRECT_URL: cluster.url('gateway'),
        },
        stop: async () => {
          await Promise.all([...bouncers.values()].map((b) => b.stop()));
        },
      };
    },
  });
}, 180_000);

afterAll(async () => {
  await ha?.stop();
}, 120_000);

/**
 * The gateway's pools are clients of the PgBouncer in front of `primary` (and of no other, but for a probe's
 * moment), and its LISTEN connection is on `primary` itself, none through a PgBouncer.
 */
async function expectPooledThrough(primary: PatroniNode): Promise<void> {
  const gatewayClients = async (node: PatroniNode) => {
    const bouncer = bouncers.get(node.name)!;
    const clients = await bouncer
      .admin<{ database: string; application_name: string }>('SHOW CLIENTS')
      .catch(() => []);
    return clients.filter((c) => c.database === 'gateway' && c.application_name.startsWith('gateway-'));
  };
  const through = await waitUntil(
    async () => {
      const clients = await gatewayClients(primary);
      return clients.length > 4 && clients;
    },
    10_000,
    () => `the gateway's pools through ${primary.name}'s PgBouncer`,
  );
  expect(through.filter((c) => c.application_name.includes('-listener-'))).toEqual([]);
  for (const node of ha.cluster.nodes.filter((n) => n !== primary && n.process?.exitCode === null)) {
    // a probe connects and leaves within its 2 s limits: a pool would stay. A connection the gateway had
    // there when the primary moved may sit `waiting` in that PgBouncer until its query_wait_timeout (30 s)
    // answers it (seen in two of seven runs, 9 s and more after a switchover; an open finding, docs/deploy.md): a pool
    // that stays past that is what this refuses
    let clients: unknown[] = [];
    await waitUntil(
      async () => {
        clients = await gatewayClients(node);
        return clients.length < 2;
      },
      35_000,
      () => `no pool through ${node.name}'s PgBouncer: ${JSON.stringify(clients)}`,
    );
  }
  const listeners = await primary.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = 'gateway' AND application_name LIKE 'gateway-%-listener-%'`,
  );
  expect(listeners?.[0]?.n).toBe(1);
}

describe('a Patroni cluster through PgBouncer in transaction mode (one on each node)', () => {
  it("sends the gateway's transactions through the PgBouncer in front of the primary", async () => {
    await expectPooledThrough((await ha.cluster.leader())!);
  });

  it('answers 503 during a planned switchover until the new leader serves, and loses nothing', async () => {
    const { to } = await switchoverUnderLoad(ha);
    await expectPooledThrough(to);
  });

  it("follows the synchronous standby's promotion when the primary's host dies with its PgBouncer, losing nothing acknowledged", async () => {
    const killed = await killPrimaryUnderLoad(ha, (node) => {
      node.kill();
      bouncers.get(node.name)!.kill();
    });
    await expectPooledThrough((await ha.cluster.leader())!);
    expect(killed.name).not.toBe((await ha.cluster.leader())!.name);
  });
});
