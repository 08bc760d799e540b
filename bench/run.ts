/**
 * `npm run bench [case ...]`: each case of bench/cases (a self-contained file exporting `run`) against a
 * fresh gateway on PostgreSQL, printed beside a baseline measured in the same run (these machines are shared
 * and noisy; only ratios mean anything), then written to bench/results.{json,md,svg}. BENCH_QUICK=1: short
 * runs (2 s, 1 s warm-up) to smoke-test a case.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import {
  type BenchCase,
  CONNECTIONS,
  current,
  DURATION,
  recorded,
  recordedCosts,
  startBenchServer,
  WARMUP,
} from './lib.js';
import { machine, writeReports } from './report.js';

const dir = path.join(import.meta.dirname, 'cases');
const wanted = process.argv.slice(2);
// the soak is a run of its own (30 minutes), never part of the cases
if (wanted.length === 1 && wanted[0] === 'soak') {
  await import('./soak.js');
}
// so is the scale run (hours at its default 100,000,000 rows)
if (wanted.length === 1 && wanted[0] === 'scale') {
  await import('./scale.js');
}
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

console.log(`benchmarks: ${cases.join(', ')} (${DURATION}s per measurement, ${CONNECTIONS} connections)`);
let postgres = 'PostgreSQL';
for (const name of cases) {
  const mod = (await import(path.join(dir, `${name}.ts`))) as {
    run: BenchCase;
    serverEnv?: Record<string, string>;
  };
  const server = await startBenchServer(mod.serverEnv);
  current.case = name;
  current.pid = server.pid;
  try {
    const [v] = await server.db.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    postgres = `PostgreSQL ${v!.v}`;
    await mod.run(server);
  } finally {
    await server.stop();
  }
}
writeReports(
  import.meta.dirname,
  recorded,
  machine(postgres),
  { duration: DURATION, warmup: WARMUP, cases },
  recordedCosts,
);
console.log('\nwrote bench/results.json, bench/results.md, bench/results.svg');
