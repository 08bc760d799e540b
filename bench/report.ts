/**
 * bench/results.json, bench/results.md and bench/results.svg from the rows the cases printed (lib.ts
 * `recorded`), with the machine they ran on.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedCost, RecordedRow } from './lib.js';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string;
  loadAverage: number[];
}

export function machine(postgres: string): Machine {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export function writeReports(
  dir: string,
  rows: RecordedRow[],
  m: Machine,
  settings: object,
  costs: RecordedCost[] = [],
): void {
  const at = new Date().toISOString();
  const commit = gitCommit();
  writeFileSync(
    path.join(dir, 'results.json'),
    `${JSON.stringify({ at, commit, machine: m, settings, rows, costs }, null, 2)}\n`,
  );
  writeFileSync(path.join(dir, 'results.md'), markdown(rows, costs, m, at, commit));
  writeFileSync(path.join(dir, 'results.svg'), svg(rows, m, at));
}

const n0 = (x: number) => Math.round(x).toLocaleString('en');

function markdown(
  rows: RecordedRow[],
  costs: RecordedCost[],
  m: Machine,
  at: string,
  commit: string,
): string {
  const lines = [
    `# Benchmark results (${at}, commit ${commit})`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}, ${m.postgres}; load average at the end ${m.loadAverage.join(' / ')}.`,
    '',
  ];
  if (rows.length > 0) {
    lines.push(
      '| Case | Gateway /s | p99 ms | Baseline /s | p99 ms | Ratio | Goal | Verdict | Gateway peak RSS MB |',
      '|---|---:|---:|---:|---:|---:|---:|---|---:|',
      ...rows.map(
        (r) =>
          `| ${r.name}<br><sub>baseline: ${r.baselineName}</sub> | ${n0(r.target.reqPerSec)} | ${r.target.p99} | ${n0(r.baseline.reqPerSec)} | ${r.baseline.p99} | ${r.ratio.toFixed(2)} | ≥ ${r.goal} | ${r.verdict} | ${r.rssMb ?? '–'} |`,
      ),
      '',
    );
  }
  if (costs.length > 0) {
    const ms = (x: number) => x.toFixed(3);
    lines.push(
      'CPU milliseconds per request: the serving process, the PostgreSQL backends serving it; ratio of the total to its baseline (lower is cheaper).',
      '',
      '| Route | Requests /s | Gateway ms | PostgreSQL ms | Total ms | Ratio | Failed |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...costs.map(
        (c) =>
          `| ${c.name}${c.baselineName ? `<br><sub>baseline: ${c.baselineName}</sub>` : ''} | ${n0(c.reqPerSec)} | ${ms(c.serverMs)} | ${ms(c.postgresMs)} | ${ms(c.totalMs)} | ${c.ratio === null ? '—' : c.ratio.toFixed(2)} | ${c.failed} |`,
      ),
      '',
    );
  }
  return lines.join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Two bar panels per row: throughput and p99, gateway beside baseline. */
function svg(rows: RecordedRow[], m: Machine, at: string): string {
  const rowH = 54;
  const top = 60;
  const width = 1100;
  const labelW = 420;
  const panelW = (width - labelW - 40) / 2;
  const height = top + rows.length * rowH + 30;
  const maxRps = Math.max(1, ...rows.flatMap((r) => [r.target.reqPerSec, r.baseline.reqPerSec]));
  const maxP99 = Math.max(1, ...rows.flatMap((r) => [r.target.p99, r.baseline.p99]));
  const bar = (x: number, y: number, w: number, color: string, text: string) =>
    `<rect x="${x}" y="${y}" width="${Math.max(1, w).toFixed(1)}" height="16" fill="${color}"/>` +
    `<text x="${(x + Math.max(1, w) + 4).toFixed(1)}" y="${y + 12}" font-size="11">${esc(text)}</text>`;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">`,
    `<title>Benchmark results: gateway beside baseline, throughput and p99 per case</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">Gateway (blue) beside baseline (grey): throughput and p99 per case</text>`,
    `<text x="10" y="38" font-size="11">${esc(`${at} · ${m.cpu}, ${m.cores} cores · Node ${m.node} · ${m.postgres}`)}</text>`,
    `<text x="${labelW}" y="${top - 6}" font-size="12" font-weight="bold">per second</text>`,
    `<text x="${labelW + panelW + 20}" y="${top - 6}" font-size="12" font-weight="bold">p99 latency (ms)</text>`,
  ];
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    const label = r.name.length > 70 ? `${r.name.slice(0, 67)}…` : r.name;
    parts.push(`<text x="10" y="${y + 14}" font-size="11">${esc(label)}</text>`);
    parts.push(
      `<text x="10" y="${y + 30}" font-size="10" fill="#555">${esc(`ratio ${r.ratio.toFixed(2)} (goal ≥ ${r.goal}) ${r.verdict}; RSS ${r.rssMb ?? '–'} MB`)}</text>`,
    );
    const scale = (panelW - 80) / maxRps;
    parts.push(bar(labelW, y, r.target.reqPerSec * scale, '#2b6cb0', n0(r.target.reqPerSec)));
    parts.push(bar(labelW, y + 18, r.baseline.reqPerSec * scale, '#a0aec0', n0(r.baseline.reqPerSec)));
    const pscale = (panelW - 60) / maxP99;
    const px = labelW + panelW + 20;
    parts.push(bar(px, y, r.target.p99 * pscale, '#2b6cb0', `${r.target.p99}`));
    parts.push(bar(px, y + 18, r.baseline.p99 * pscale, '#a0aec0', `${r.baseline.p99}`));
  });
  parts.push('</svg>\n');
  return parts.join('\n');
}
