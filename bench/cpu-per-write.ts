/**
 * Diagnostic, not a case: CPU per write. `node --import tsx bench/cpu-per-write.ts` starts the bench gateway and
 * loads, EXP_ROUNDS times each for EXP_DUR seconds: cashouts of one merchant (50 connections, the payout
 * worker running), and settlements (sandbox status route, concurrency 16) of one merchant and of 64. It prints
 * CPU microseconds per request of the gateway, of every PostgreSQL process and of the load generator (/proc),
 * and the share of the rows' updates that were HOT (heap-only: no index entry written). CPU per request moves
 * far less with a shared machine's noise than requests per second do. EXP_CASES=cashout,one,many picks rows.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { cashoutRequests } from './cases/cashout.js';
import { seedSales, settleRequests, steadySeed } from './cases/settlement.js';
import { benchMerchant, cpuSnapshot, fundedMerchant, startBenchServer } from './lib.js';

const cases = (process.env.EXP_CASES ?? 'cashout,one,many').split(',');
const server = await startBenchServer();
const one = await benchMerchant(server.db);
const single = [{ m: one, ids: await seedSales(server.db, one.accountId, 40_000) }];
const many = await Promise.all(
  Array.from({ length: 64 }, async () => {
    const m = await benchMerchant(server.db);
    return { m, ids: await seedSales(server.db, m.accountId, 1_500) };
  }),
);
await steadySeed(server.db);
const payer = await fundedMerchant(server.db);
const cashout = { url: server.url, connections: 50, requests: cashoutRequests(payer) };

/** The machine's CPU time so far (/proc/stat, in ticks): busy, idle (with iowait) and stolen by the host. */
function machine(): { busy: number; idle: number; steal: number } {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = f.map(Number) as number[];
  return { busy: user! + nice! + system! + irq! + softirq!, idle: idle! + iowait!, steal: steal! };
}

async function hot(table: string): Promise<{ upd: number; hot: number }> {
  const [r] = await server.db.query<{ upd: string; hot: string }>(
    'SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = $1',
    [table],
  );
  return { upd: Number(r!.upd), hot: Number(r!.hot) };
}

async function round(name: string, opts: autocannon.Options, table: string): Promise<void> {
  await autocannon({ ...opts, duration: 1 });
  const c0 = cpuSnapshot(server.pid);
  const m0 = machine();
  const h0 = await hot(table);
  const r = await autocannon({ ...opts, duration: Number(process.env.EXP_DUR ?? 5) });
  const c1 = cpuSnapshot(server.pid);
  const m1 = machine();
  await new Promise((res) => setTimeout(res, 700)); // statistics reach pg_stat after up to 500 ms
  const h1 = await hot(table);
  const count = r.requests.total;
  const us = (x: number) => ((x * 1e6) / count).toFixed(0).padStart(5);
  const all = m1.busy + m1.idle + m1.steal - (m0.busy + m0.idle + m0.steal);
  const share = (x: number) => `${((100 * x) / all).toFixed(0)} %`;
  const hotShare = (h1.hot - h0.hot) / Math.max(1, h1.upd - h0.upd);
  console.log(
    `${name.padEnd(12)} ${r.requests.average.toFixed(0).padStart(6)}/s  gateway ${us(c1.gateway - c0.gateway)} us  pg ${us(c1.postgres - c0.postgres)} us  autocannon ${us(c1.bench - c0.bench)} us  ${table} HOT ${(hotShare * 100).toFixed(0)} %  machine busy ${share(m1.busy - m0.busy)} idle ${share(m1.idle - m0.idle)} steal ${share(m1.steal - m0.steal)}`,
  );
}
for (let i = 0; i < Number(process.env.EXP_ROUNDS ?? 2); i++) {
  if (cases.includes('cashout')) await round('cashout', cashout, 'withdrawals');
  if (cases.includes('one'))
    await round(
      'one merchant',
      { url: server.url, requests: settleRequests(single), connections: 16 },
      'sales',
    );
  if (cases.includes('many'))
    await round(
      '64 merchants',
      { url: server.url, requests: settleRequests(many), connections: 16 },
      'sales',
    );
}
await server.stop();
