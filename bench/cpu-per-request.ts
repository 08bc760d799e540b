/**
 * Diagnostic, not a case: where a read's CPU goes. `node --import tsx bench/cpu-per-request.ts` starts the bench
 * gateway and the bare baseline, loads `GET /select1` and `GET /api/public/balance` in turn (50 connections,
 * EXP_DUR seconds, EXP_ROUNDS rounds) and prints CPU microseconds per request of the server, of every
 * PostgreSQL process and of the load generator (/proc). EXP_ENV='{"LOG_LEVEL":"warn"}' sets the gateway's
 * settings; EXP_IDLE=1 first measures 5 s without load; EXP_ONLY_GW=1 first loads the gateway alone for 8 s
 * (for a CPU profile of it with BENCH_CHILD_ARGS="--cpu-prof --cpu-prof-dir=…").
 */
import autocannon from 'autocannon';
import { cpuSeconds, cpuSnapshot, fundedMerchant, startBareServer, startBenchServer } from './lib.js';

const server = await startBenchServer(JSON.parse(process.env.EXP_ENV ?? '{}'));
const m = await fundedMerchant(server.db);
const bare = await startBareServer(server);
async function one(name: string, opts: autocannon.Options, pid: number) {
  await autocannon({ ...opts, connections: 50, duration: 2 });
  const c0 = cpuSnapshot(server.pid);
  const p0 = cpuSeconds(pid);
  const t0 = Date.now();
  const r = await autocannon({ ...opts, connections: 50, duration: Number(process.env.EXP_DUR ?? 5) });
  const c1 = cpuSnapshot(server.pid);
  const p1 = cpuSeconds(pid);
  const secs = (Date.now() - t0) / 1000;
  const n = r.requests.total;
  const us = (x: number) => ((x * 1e6) / n).toFixed(0).padStart(5);
  console.log(
    `${name.padEnd(10)} ${r.requests.average.toFixed(0).padStart(6)} req/s  server ${us(p1 - p0)} us/req  pg ${us(c1.postgres - c0.postgres)} us/req  bench(autocannon) ${us(c1.bench - c0.bench)} us/req  wall ${secs.toFixed(1)}s`,
  );
}
if (process.env.EXP_IDLE) {
  const c0 = cpuSnapshot(server.pid);
  await new Promise((r) => setTimeout(r, 5000));
  const c1 = cpuSnapshot(server.pid);
  console.log(
    'idle 5s: gateway',
    (c1.gateway - c0.gateway).toFixed(2),
    'pg',
    (c1.postgres - c0.postgres).toFixed(2),
  );
}
if (process.env.EXP_ONLY_GW) {
  await autocannon({
    url: `${server.url}/api/public/balance`,
    headers: m.keys,
    connections: 50,
    duration: 8,
  });
}
for (let i = 0; i < Number(process.env.EXP_ROUNDS ?? 2); i++) {
  await one('bare', { url: `${bare.url}/select1` }, bare.pid);
  await one('balance', { url: `${server.url}/api/public/balance`, headers: m.keys }, server.pid);
}
await bare.stop();
await server.stop();
