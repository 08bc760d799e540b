import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { newEndToEndId } from '../../src/devpsp/state.js';
import { PixApiClient } from '../../src/payment-standards/pix-api-client.js';
import { reconcileDue } from '../../src/reconciliation/due-runs.js';
import { SaleSettler } from '../../src/sales/settlement/settler.js';
import { eventsOf, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;
const MAIN = path.resolve(import.meta.dirname, '../../dist/bundle/main.mjs');

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await psp?.close();
});

it('a gateway reconcile killed between pages leaves its run to the workers, resumed at the page it reached', async () => {
  // a full first page (1,000 Pix to the key without a charge), then the Pix whose webhook was lost
  const earlier = new Date(Date.now() - 30_000).toISOString();
  for (let i = 0; i < 1000; i++) {
    const e2eid = newEndToEndId('E');
    psp.state.pix.set(e2eid, { endToEndId: e2eid, valor: '1.00', horario: earlier, devolucoes: [] });
  }
  const sale = (
    await call<SaleBody>('POST', `${server.url}/api/transactions`, {
      headers: merchant.keys,
      body: saleInput(),
    })
  ).body;
  await psp.pay(sale.externalTransactionId, { times: 0 });
  const from = new Date(Date.now() - 60_000).toISOString();
  const to = new Date(Date.now() + 60_000).toISOString();

  // the second page never comes back, and the process dies waiting for it
  psp.failNext('GET /pix', { hang: true }, 1, 1);
  const child = spawn(process.execPath, [MAIN, 'reconcile', '--from', from, '--to', to], {
    env: { ...process.env, ...server.env, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const asked = () => psp.state.log.filter((l) => l === 'GET /pix').length;
  const askedBefore = asked();
  const run = await waitUntil(async () => {
    const [row] = await db().query<{ id: number; next_page: number }>(
      `SELECT id, next_page FROM reconciliation_runs WHERE schedule = 'manual' AND next_page = 1`,
    );
    // the first page recorded, and the second asked for
    return asked() === askedBefore + 2 && row;
  });
  child.kill('SIGKILL');
  await once(child, 'exit');
  expect(await statusOf(sale.id)).toBe('PENDENTE');

  // a worker finds the run once the dead process's lease has run out
  await db().query(
    `UPDATE reconciliation_runs SET leased_until = now() - interval '1 second' WHERE id = $1`,
    [run.id],
  );
  const pagesBefore = psp.state.pixPages.length;
  const client = new PixApiClient(server.runtime.platform.config.bcb!);
  try {
    const { queue } = server.runtime.platform;
    const quiet = { info: () => undefined, warn: () => undefined };
    await reconcileDue(
      { db: db(), queue, settler: new SaleSettler(db(), queue), client },
      quiet,
      new Date(0),
    );
  } finally {
    await client.close();
  }
  expect(psp.state.pixPages[pagesBefore]).toBe(1);
  const [done] = await db().query<{ finished: boolean; received: number; credited_now: number }>(
    'SELECT finished_at IS NOT NULL AS finished, received, credited_now FROM reconciliation_runs WHERE id = $1',
    [run.id],
  );
  expect(done).toEqual({ finished: true, received: 1001, credited_now: 1 });
  expect(await statusOf(sale.id)).toBe('PAGO');
  expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
    'sale.pending',
    'sale.paid',
  ]);
  const [kept] = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM reconciliation_discrepancies WHERE kind = 'unknown_charge'`,
  );
  expect(kept!.n).toBe(1000);
});

async function statusOf(id: number): Promise<string> {
  return (await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [id]))[0]!.status;
}
