/**
 * The gateway as benchmarked: the real runtime (API + workers) plus baseline routes in the same process,
 * on the same database pool, so each case can be compared with the cheapest work of its own shape.
 */

import type * as SignalsModule from '../src/cli/signals.js';
import type * as PixClientModule from '../src/payment-standards/pix-api-client.js';
import type * as ConfigModule from '../src/platform/config/config.js';
import type { Platform } from '../src/platform/context.js';
import type { Http } from '../src/platform/http/types.js';
import type * as ReconciliationModule from '../src/reconciliation/due-runs.js';
import type * as RuntimeModule from '../src/runtime.js';
import type * as SettlerModule from '../src/sales/settlement/settler.js';

// the gateway as `npm start` runs it: the compiled dist/ (npm run bench builds first), not sources through tsx
const { loadConfig } = (await import('../dist/platform/config/config.js' as string)) as typeof ConfigModule;
const { startRuntime } = (await import('../dist/runtime.js' as string)) as typeof RuntimeModule;
const { closeOnSignals } = (await import('../dist/cli/signals.js' as string)) as typeof SignalsModule;

async function baselines(app: Http, platform: Platform): Promise<void> {
  const { db } = platform;
  await db.query('CREATE TABLE IF NOT EXISTS bench_balance (id int PRIMARY KEY, balance bigint NOT NULL)');
  await db.query(
    'CREATE TABLE IF NOT EXISTS bench_rows (id bigserial PRIMARY KEY, amount bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
  );
  await db.query(
    'INSERT INTO bench_balance (id, balance) SELECT g, 1000000000000 FROM generate_series(1, 64) g ON CONFLICT DO NOTHING',
  );

  app.get('/bench/select1', async () => {
    await db.query('SELECT 1');
    return { ok: true };
  });

  // One raw transaction of a cashout's shape: update one balance row, insert one row. A merchant's cashouts
  // all debit that merchant's one balance row, so the baseline updates one row too (/bench/tx); the spread
  // variant (one of 64 rows) shows what the database does without that contention.
  const rawTx = (slot: number) =>
    db.tx(async (tx) => {
      await tx.query(
        'UPDATE bench_balance SET balance = balance - 10000 WHERE id = $1 AND balance >= 10000',
        [slot],
      );
      await tx.query('INSERT INTO bench_rows (amount) VALUES (10000)');
    });
  app.post('/bench/tx', async () => {
    await rawTx(1);
    return { ok: true };
  });
  app.post('/bench/tx-spread', async () => {
    await rawTx(1 + Math.floor(Math.random() * 64));
    return { ok: true };
  });
}

/**
 * PIX_PROCESSOR=bcb: POST /bench/reconcile {from, to} reconciles that window in this process, as a worker of
 * `gateway serve` runs the scheduled reconciliation (bench/cases/reconcile.ts).
 */
async function reconcileRoute(app: Http, platform: Platform): Promise<void> {
  const settings = platform.config.bcb;
  if (!settings) return;
  const { PixApiClient } = (await import(
    '../dist/payment-standards/pix-api-client.js' as string
  )) as typeof PixClientModule;
  const { SaleSettler } = (await import(
    '../dist/sales/settlement/settler.js' as string
  )) as typeof SettlerModule;
  const { reconcileWindow } = (await import(
    '../dist/reconciliation/due-runs.js' as string
  )) as typeof ReconciliationModule;
  const { db, queue, outbox, log } = platform;
  const deps = {
    db,
    queue,
    settler: new SaleSettler(db, queue, outbox),
    client: new PixApiClient(settings),
    log,
  };
  app.post('/bench/reconcile', async (request) => {
    const { from, to } = request.body as { from: string; to: string };
    return reconcileWindow(deps, new Date(from), new Date(to));
  });
}

// diagnostics: BENCH_WORKERS=0 serves the API alone (as `gateway serve --no-worker`), for a case that runs the
// workers in a process of their own
const runtime = await startRuntime(loadConfig(), {
  http: true,
  workers: process.env.BENCH_WORKERS !== '0',
  beforeListen: async (app, platform) => {
    await baselines(app, platform);
    await reconcileRoute(app, platform);
  },
});
closeOnSignals(runtime);
// ends with the bench that started it: a bench killed from outside (its IPC channel closed) leaves no gateway
// holding the database's connections
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
process.stdout.write(`BENCH_SERVER ${runtime.url}\n`);
// diagnostics: BENCH_ELU=1 prints the gateway's event-loop utilization every 250 ms (near 1: the process is the
// bottleneck)
if (process.env.BENCH_ELU) {
  let last = performance.eventLoopUtilization();
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    process.stderr.write(`ELU ${performance.eventLoopUtilization(now, last).utilization.toFixed(2)}\n`);
    last = now;
  }, 250).unref();
}
