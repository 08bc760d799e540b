import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { getBalance, postEntry } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { AppError } from '../../src/platform/errors/app-error.js';
import { applyProcessorStatus } from '../../src/sales/processors/callbacks.js';
import { SandboxProcessor } from '../../src/sales/processors/sandbox.js';
import { createSandboxSale } from '../../src/sales/sandbox-sales.js';
import { releaseReserve } from '../../src/sales/settlement/reserve.js';
import { SaleSettler } from '../../src/sales/settlement/settler.js';
import { SALE_STATUSES, type SaleStatus } from '../../src/sales/settlement/status-machine.js';
import type { SaleRow } from '../../src/sales/types.js';
import { createMerchant } from '../support/factories.js';
import { startServer, type TestServer } from '../support/server.js';
import { CUSTOMER } from './fixtures.js';

let server: TestServer;
let processor: SandboxProcessor;

beforeAll(async () => {
  server = await startServer({ workers: false });
  processor = new SandboxProcessor(server.runtime.platform.config.secretsKey);
});
afterAll(() => server?.close());

const db = () => server.runtime.platform.db;
const settler = () => new SaleSettler(db(), server.runtime.platform.queue);

async function merchant(fees: { percent?: number; fixed?: number; reserve?: number } = {}) {
  const m = await createMerchant(server);
  await updateAccount(db(), m.accountId, {
    saleFeePercentE4: fees.percent ?? 0,
    saleFeeFixed: fees.fixed ?? 0,
    reservePercentE4: fees.reserve ?? 0,
  });
  return m.accountId;
}

async function sale(accountId: number, amount: number): Promise<SaleRow> {
  return createSandboxSale(db(), processor, accountId, {
    amount,
    paymentMethod: 'PIX',
    customer: CUSTOMER,
    items: [{ title: 'x', unitPrice: amount, quantity: 1, tangible: false }],
  });
}

async function move(s: SaleRow, status: SaleStatus): Promise<SaleRow> {
  return (await applyProcessorStatus(settler(), 'sandbox', s.external_transaction_id, status)).sale;
}

/** A cashout's shape: available → payouts, guarded. */
async function withdraw(accountId: number, amount: number) {
  await db().tx((tx) =>
    postEntry(tx, {
      kind: 'test.cashout',
      refType: 'test',
      refId: 0,
      guardAvailable: true,
      postings: [
        { target: { accountId, bucket: 'available' }, amount: -amount },
        { target: { system: 'payouts' }, amount },
      ],
    }),
  );
}

describe('balance effects', () => {
  it('PAGO credits net − reserve to available and the reserve to blocked; fees and processor balance', async () => {
    const acc = await merchant({ percent: 39900, fixed: 99, reserve: 50000 });
    const s = await sale(acc, 20000); // fee 798 + 99 = 897, net 19103, reserve 1000
    expect([s.system_fee, s.net_amount, s.reserve_amount]).toEqual([897, 19103, 1000]);
    await move(s, 'PAGO');
    expect(await getBalance(db(), acc)).toEqual({ available: 18103, blocked: 1000, total: 19103 });
    const postings = await db().query<{ code: string; amount: number }>(
      `SELECT la.code, p.amount FROM postings p JOIN journal_entries e ON e.id = p.entry_id
         JOIN ledger_accounts la ON la.id = p.ledger_account_id
        WHERE e.ref_type = 'sale' AND e.ref_id = $1 ORDER BY la.code`,
      [s.id],
    );
    expect(postings).toEqual([
      { code: `merchant:${acc}:available`, amount: 18103 },
      { code: `merchant:${acc}:blocked`, amount: 1000 },
      { code: 'system:fees', amount: 897 },
      { code: 'system:processor', amount: -20000 },
    ]);
  });

  it('a refund the available balance cannot cover leaves merchant debt, and cashouts stop until it is repaid', async () => {
    const acc = await merchant();
    const s = await sale(acc, 10000);
    await move(s, 'PAGO');
    await withdraw(acc, 10000);
    await move(s, 'ESTORNADO');
    expect(await getBalance(db(), acc)).toEqual({ available: -10000, blocked: 0, total: -10000 });
    await expect(withdraw(acc, 1)).rejects.toBeInstanceOf(AppError);
    const next = await sale(acc, 15000);
    await move(next, 'PAGO');
    expect(await getBalance(db(), acc)).toEqual({ available: 5000, blocked: 0, total: 5000 });
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('a dispute the available balance cannot cover still blocks the whole net', async () => {
    const acc = await merchant();
    const s = await sale(acc, 10000);
    await move(s, 'PAGO');
    await withdraw(acc, 7000);
    await move(s, 'MED');
    expect(await getBalance(db(), acc)).toEqual({ available: -7000, blocked: 10000, total: 3000 });
    await move(s, 'PAGO');
    expect(await getBalance(db(), acc)).toEqual({ available: 3000, blocked: 0, total: 3000 });
    await move(s, 'CHARGEBACK');
    await move(s, 'ESTORNADO');
    expect(await getBalance(db(), acc)).toEqual({ available: -7000, blocked: 0, total: -7000 });
  });
});

describe('financial reserve', () => {
  it('is scheduled for release 30 days after the first PAGO', async () => {
    const acc = await merchant({ reserve: 100000 });
    const s = await sale(acc, 10000);
    await move(s, 'PAGO');
    const jobs = await db().query<{ days: number }>(
      `SELECT round(extract(epoch FROM start_after - now()) / 86400)::int AS days FROM pgboss.job
        WHERE name = 'sales.release-reserve' AND (data->>'saleId')::bigint = $1`,
      [s.id],
    );
    expect(jobs).toEqual([{ days: 30 }]);
  });

  it('release moves the reserve to available once; later refund takes the net from available', async () => {
    const acc = await merchant({ reserve: 100000 }); // 10 %
    const s = await sale(acc, 10000);
    await move(s, 'PAGO');
    expect(await getBalance(db(), acc)).toEqual({ available: 9000, blocked: 1000, total: 10000 });
    expect(await releaseReserve(db(), s.id)).toBe(true);
    expect(await releaseReserve(db(), s.id)).toBe(false);
    expect(await getBalance(db(), acc)).toEqual({ available: 10000, blocked: 0, total: 10000 });
    await move(s, 'ESTORNADO');
    expect(await getBalance(db(), acc)).toEqual({ available: 0, blocked: 0, total: 0 });
  });

  it('release during an open dispute keeps everything blocked until the dispute ends', async () => {
    const acc = await merchant({ reserve: 100000 });
    const won = await sale(acc, 10000);
    await move(won, 'PAGO');
    await move(won, 'MED');
    expect(await getBalance(db(), acc)).toEqual({ available: 0, blocked: 10000, total: 10000 });
    expect(await releaseReserve(db(), won.id)).toBe(true);
    expect(await getBalance(db(), acc)).toEqual({ available: 0, blocked: 10000, total: 10000 });
    await move(won, 'PAGO');
    expect(await getBalance(db(), acc)).toEqual({ available: 10000, blocked: 0, total: 10000 });

    const lost = await sale(acc, 10000);
    await move(lost, 'PAGO');
    await move(lost, 'CHARGEBACK');
    await releaseReserve(db(), lost.id);
    await move(lost, 'ESTORNADO');
    expect(await getBalance(db(), acc)).toEqual({ available: 10000, blocked: 0, total: 10000 });
  });

  it('a refunded sale has no reserve left to release', async () => {
    const acc = await merchant({ reserve: 100000 });
    const s = await sale(acc, 10000);
    await move(s, 'PAGO');
    await move(s, 'ESTORNADO');
    expect(await releaseReserve(db(), s.id)).toBe(false);
    expect(await getBalance(db(), acc)).toEqual({ available: 0, blocked: 0, total: 0 });
  });
});

describe('random transition sequences (fast-check)', () => {
  type Cmd =
    | { kind: 'create'; amount: number }
    | { kind: 'move'; pick: number; status: SaleStatus }
    | { kind: 'release'; pick: number };
  const cmd: fc.Arbitrary<Cmd> = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), amount: fc.integer({ min: 200, max: 5_000_000 }) }),
    fc.record({
      kind: fc.constant('move' as const),
      pick: fc.nat(),
      status: fc.constantFrom(...SALE_STATUSES),
    }),
    fc.record({
      kind: fc.constant('move' as const),
      pick: fc.nat(),
      status: fc.constantFrom('PAGO', 'MED', 'CHARGEBACK', 'ESTORNADO'),
    }),
    fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  );

  it('keeps the ledger balanced and every balance equal to what its sales say', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(cmd, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 0, max: 50000 }),
        fc.integer({ min: 0, max: 300000 }),
        async (cmds, percent, reserve) => {
          const acc = await merchant({ percent, fixed: 100, reserve });
          const sales: SaleRow[] = [];
          for (const c of cmds) {
            if (c.kind === 'create') sales.push(await sale(acc, c.amount));
            else if (sales.length > 0 && c.kind === 'move') {
              const s = sales[c.pick % sales.length]!;
              await move(s, c.status).catch((err: unknown) => {
                if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
              });
            } else if (sales.length > 0) await releaseReserve(db(), sales[c.pick % sales.length]!.id);
          }
          const rows = await db().query<SaleRow>('SELECT * FROM sales WHERE account_id = $1', [acc]);
          let available = 0;
          let blocked = 0;
          for (const r of rows) {
            const held = r.reserve_held ? r.reserve_amount : 0;
            if (r.status === 'PAGO') {
              available += r.net_amount - held;
              blocked += held;
            } else if (r.status === 'MED' || r.status === 'CHARGEBACK') blocked += r.net_amount;
          }
          expect(await getBalance(db(), acc)).toEqual({ available, blocked, total: available + blocked });
          const report = await verifyLedger(db());
          expect(report.problems).toEqual([]);
        },
      ),
      { numRuns: 25 },
    );
  });
});
