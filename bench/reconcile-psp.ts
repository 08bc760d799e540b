/**
 * The local PSP of bench/cases/reconcile.ts in a process of its own (as a PSP is another machine's): it holds
 * BENCH_PSP_PIX received Pix paid over the two hours from BENCH_PSP_START, and prints its settings as one line
 * `BENCH_PSP <json>`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DevPsp } from '../src/devpsp/server.js';
import { gatewaySettingsFor } from '../src/devpsp/settings.js';
import { formatReais } from '../src/platform/money/money.js';

const count = Number(process.env.BENCH_PSP_PIX);
const start = Date.parse(process.env.BENCH_PSP_START!);
const spanMs = Number(process.env.BENCH_PSP_SPAN_MS);

const psp = new DevPsp();
const url = await psp.start();
for (let i = 1; i <= count; i++) {
  const e2eid = `E99999999202611220000${String(i).padStart(11, '0')}`;
  psp.state.pix.set(e2eid, {
    endToEndId: e2eid,
    txid: `BENCHRECON${String(i).padStart(10, '0')}`,
    valor: formatReais(1000 + (i % 5000)),
    horario: new Date(start + (i * spanMs) / count).toISOString(),
    devolucoes: [],
  });
}
// the bench reads nothing else from it: the request log would only grow
psp.state.exchanges.length = 0;
const settings = {
  ...gatewaySettingsFor(psp, url, mkdtempSync(path.join(tmpdir(), 'gw-bench-psp-'))),
  PUBLIC_URL: 'http://127.0.0.1:9',
};
process.stdout.write(`BENCH_PSP ${JSON.stringify(settings)}\n`);
process.on('SIGTERM', () => void psp.close().then(() => process.exit(0)));
