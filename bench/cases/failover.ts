import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { openDb } from '../../src/platform/db/db.js';
import {
  type Cluster,
  initPrimary,
  postgresOwnedDir,
  removeDir,
  requireSyncStandby,
} from '../../test/support/pg-cluster.js';
import { CONNECTIONS, fundedMerchant, type Measurement, plainScript, printRow } from '../lib.js';
import { cashoutRequests } from './cashout.js';

const QUICK = Boolean(process.env.BENCH_QUICK);
const ROUNDS = QUICK ? 1 : 5;
const ROUND_SECONDS = QUICK ? 2 : 4;
/** How long the primary stays dead before the standby is promoted (a failover tool's detection time). */
const DEAD_MS = 2_000;
const CLIENTS = 20;

/**
 * A PostgreSQL 15 primary with one standby (Debian's binaries, clusters of their own; the `server` this case
 * is given is not used) and the gateway on both (multi-host DATABASE_URL):
 * 1. cashout throughput with the standby synchronous against the same standby asynchronous, rounds
 *    alternated: the price of losing nothing acknowledged;
 * 2. a failover under cashout load from CLIENTS clients: the primary SIGKILLed, the standby promoted
 *    DEAD_MS later; time from the promotion to the first 2xx, and what was answered meanwhile.
 */
export async function run(): Promise<void> {
  const root = postgresOwnedDir('gw-bench-failover-');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-failover-data-'));
  let primary: Cluster | undefined;
  let standby: Cluster | undefined;
  let stopGateway = async () => {};
  try {
    primary = await initPrimary(root, ['synchronous_commit = on', 'shared_buffers = 128MB']);
    await primary.query('CREATE DATABASE gateway');
    standby = await primary.standby(root, 'standby1');
    const databaseUrl = `postgres://postgres@${primary.host},${standby.host}/gateway`;
    const gateway = await startGateway(databaseUrl, dataDir);
    stopGateway = gateway.stop;
    const db = openDb({ databaseUrl, poolMax: 2 });
    const merchant = await fundedMerchant(db);
    await db.close();

    await priceOfSync(primary, gateway.url, cashoutRequests(merchant));
    await failover(primary, standby, gateway.url, merchant.keys);
  } finally {
    await stopGateway();
    await primary?.stop('immediate');
    await standby?.stop('immediate');
    removeDir(root);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function startGateway(databaseUrl: string, dataDir: string) {
  const child = spawn(process.execPath, [plainScript('bench/server.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_KEY: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  child.channel?.unref(); // the IPC channel ends the gateway if this bench dies
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /BENCH_SERVER (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`failover bench server exited with ${code}: ${out}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

async function priceOfSync(primary: Cluster, url: string, requests: autocannon.Request[]): Promise<void> {
  const round = async (sync: boolean): Promise<Measurement> => {
    if (sync) await requireSyncStandby(primary, 'standby1');
    else {
      await primary.query(`ALTER SYSTEM SET synchronous_standby_names = ''`);
      await primary.query('SELECT pg_reload_conf()');
    }
    const r = await autocannon({ url, requests, connections: CONNECTIONS, duration: ROUND_SECONDS });
    return { reqPerSec: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
  };
  await round(false); // warm-up
  const asyncRounds: Measurement[] = [await round(false)];
  const syncRounds: Measurement[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    syncRounds.push(await round(true));
    asyncRounds.push(await round(false));
  }
  const ratios = syncRounds.map(
    (s, i) => s.reqPerSec / ((asyncRounds[i]!.reqPerSec + asyncRounds[i + 1]!.reqPerSec) / 2),
  );
  const median = <T>(list: T[], key: (t: T) => number) =>
    [...list].sort((a, b) => key(a) - key(b))[Math.floor(list.length / 2)]!;
  printRow({
    name: 'POST /api/public/cashout, standby synchronous (nothing acknowledged is lost with the primary)',
    target: median(syncRounds, (m) => m.reqPerSec),
    baselineName: 'the same, standby asynchronous (synchronous_standby_names empty), rounds alternated',
    baseline: median(asyncRounds, (m) => m.reqPerSec),
    ratio: median(ratios, (r) => r),
    goal: 0.5,
  });
  await requireSyncStandby(primary, 'standby1'); // the failover below runs as production would
}

async function failover(
  primary: Cluster,
  standby: Cluster,
  url: string,
  keys: Record<string, string>,
): Promise<void> {
  const answers: { at: number; status: number }[] = [];
  let done = false;
  let n = 0;
  const client = async () => {
    while (!done) {
      const status = await fetch(`${url}/api/public/cashout`, {
        method: 'POST',
        headers: { ...keys, 'content-type': 'application/json', 'idempotency-key': `fo-bench-${n++}` },
        body: JSON.stringify({ amount: 100, pixKey: '52998224725' }),
      }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      );
      answers.push({ at: performance.now(), status });
      if (status === 503) await new Promise((r) => setTimeout(r, 50));
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  await new Promise((r) => setTimeout(r, 2_000));
  const killedAt = performance.now();
  primary.kill();
  await new Promise((r) => setTimeout(r, DEAD_MS));
  const promoteStarted = performance.now();
  await standby.promote();
  const promotedAt = performance.now();
  for (;;) {
    if (answers.some((a) => a.at > promotedAt && a.status < 300)) break;
    if (performance.now() - promotedAt > 60_000) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 2_000));
  done = true;
  await Promise.all(clients);
  const firstOk = answers.find((a) => a.at > promotedAt && a.status < 300);
  const during = answers.filter((a) => a.at > killedAt && (!firstOk || a.at < firstOk.at));
  const count = (s: number) => during.filter((a) => a.status === s).length;
  const other = during.filter((a) => a.status !== 503 && a.status >= 300);
  console.log(
    `\nfailover: primary SIGKILLed under cashout load (${CLIENTS} clients), standby promoted ${DEAD_MS} ms later`,
  );
  console.log(`  pg_ctl promote took                 ${(promotedAt - promoteStarted).toFixed(0)} ms`);
  console.log(
    `  promotion → first 2xx               ${firstOk ? `${(firstOk.at - promotedAt).toFixed(0)} ms` : 'none within 60 s'}`,
  );
  console.log(
    `  kill → first 2xx                    ${firstOk ? `${(firstOk.at - killedAt).toFixed(0)} ms` : '—'}`,
  );
  console.log(
    `  answered meanwhile                  ${count(503)} × 503${other.length ? `, ${other.length} other (${[...new Set(other.map((a) => a.status))].join(', ')})` : ', nothing else'}`,
  );
  console.log(
    `  2xx before the kill / after         ${answers.filter((a) => a.at < killedAt && a.status < 300).length} / ${answers.filter((a) => firstOk && a.at >= firstOk.at && a.status < 300).length}`,
  );
}
