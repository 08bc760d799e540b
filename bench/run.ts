/**
 * `npm run bench [case ...]`: each case of bench/cases against a fresh gateway on PostgreSQL, printed beside
 * a baseline measured in the same run (these machines are shared and noisy; only ratios mean anything).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type BenchCase, current, DURATION, startBenchServer } from './lib.js';

const dir = path.join(import.meta.dirname, 'cases');
const wanted = process.argv.slice(2);
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

console.log(`benchmarks: ${cases.join(', ')} (${DURATION}s per measurement, 50 connections)`);
for (const name of cases) {
  const mod = (await import(path.join(dir, `${name}.ts`))) as { run: BenchCase };
  const server = await startBenchServer();
  current.case = name;
  current.pid = server.pid;
  try {
    await mod.run(server);
  } finally {
    await server.stop();
  }
}
