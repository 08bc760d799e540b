import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../../src/accounts/accounts.js';
import { balanceStatement } from '../../../src/ledger/batch-entries.js';
import { getBalance } from '../../../src/ledger/ledger.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { sandboxProcessorSecret, signProcessorCallback } from '../../../src/sales/processors/sandbox.js';
import { settleBatch } from '../../../src/sales/settlement/settle-batch.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { startServer, type TestServer } from '../../support/server.js';
import { moveTo, type SaleBody, sandboxSale } from '../fixtures.js';

// Settlements of one merchant share transactions (src/sales/settler.ts): these check that every report is
// still decided on its own, written once, with its ledger entry and notification, under real concurrency.

let server: TestServer;
let secret: string;

beforeAll(async () => {
  server = await startServer({ workers: false });
  secret = sandboxProcessorSecret(server.runtime.platform.config.secretsKey);
});
afterAll(() => server?.close());

const db = () => server.runtime.platform.db;

async function merchant(): Promise<TestMerchant> {
  const m = await createMerchant(server);
  // a fee and a reserve, so both balance rows move
  await updateAccount(db(), m.accountId, {
    saleFeePercentE4: 20000,
    saleFeeFixed: 50,
    reservePercentE4: 100000,
  });
  return m;
}

async function sales(m: TestMerchant, n: number): Promise<SaleBody[]> {
  const out: SaleBody[] = [];
  for (let i = 0; i < n; i += 20) {
    const chunk = Array.from({ length: Math.min(20, n - i) }, (_, j) =>
      sandboxSale(server, m, {
        amount: 1000 + i + j,
        items: [{ title: 'x', unitPrice: 1000 + i + j, quantity: 1, tangible: false }],
      }),
    );
    out.push(...(await Promise.all(chunk)));
  }
  return out;
}

/** A signed processor callback; `at` varies the timestamp, so the same report gets another signature. */
function callback(sale: SaleBody, status: string, at = Math.floor(Date.now() / 1000)) {
  const body = JSON.stringify({ externalTransactionId: sale.externalTransactionId, status });
  const ts = String(at);
  return call<{ status: string; changed: boolean; code?: string }>(
    'POST',
    `${server.url}/api/providers/sandbox/sales/callback`,
    {
      headers: {
        'content-type': 'application/json',
        'x-processor-timestamp': ts,
        'x-processor-signature': signProcessorCallback(secret, ts, body),
      },
      body,
    },
  );
}

interface SaleState {
  status: string;
  entries: string[];
  events: string[];
}

async function stateOf(ids: number[]): Promise<Map<number, SaleState>> {
  const rows = await db().query<{ id: number; status: string; entries: string[]; events: string[] }>(
    `SELECT s.id, s.status,
            ARRAY(SELECT kind FROM journal_entries e WHERE e.ref_type = 'sale' AND e.ref_id = s.id ORDER BY e.id) AS entries,
            ARRAY(SELECT event_type FROM notification_events n
                   WHERE n.subject_type = 'sale' AND n.subject_id = s.id AND n.event_type <> 'sale.pending'
                   ORDER BY n.id) AS events
       FROM sales s WHERE s.id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { status: r.status, entries: r.entries, events: r.events }]));
}

/** What the merchant's balance must be from its sales' statuses alone (no reserve released in these tests). */
async function expectedBalance(accountId: number) {
  const [row] = await db().query<{ available: number; blocked: number }>(
    `SELECT COALESCE(sum(net_amount - reserve_amount), 0)::bigint AS available,
            COALESCE(sum(reserve_amount), 0)::bigint AS blocked
       FROM sales WHERE account_id = $1 AND status = 'PAGO'`,
    [accountId],
  );
  return { available: row!.available, blocked: row!.blocked, total: row!.available + row!.blocked };
}

/**
 * Reads the balance and what the sales say it must be, in one statement (one snapshot), over and over until
 * `work` ends: a status committed without its balance change (or the reverse) would show as a difference.
 */
async function readWhile(accountId: number, work: Promise<unknown>) {
  let done = false;
  void work.finally(() => {
    done = true;
  });
  const mismatches: unknown[] = [];
  let reads = 0;
  while (!done && reads < 2000) {
    const [row] = await db().query<{ balance: number; derived: number }>(
      `SELECT (SELECT balance FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available') AS balance,
              (SELECT COALESCE(sum(net_amount - reserve_amount), 0) FROM sales
                WHERE account_id = $1 AND status = 'PAGO')::bigint AS derived`,
      [accountId],
    );
    reads++;
    if (row!.balance !== row!.derived) mismatches.push(row);
  }
  await work;
  return { reads, mismatches };
}

describe('concurrent settlements of one merchant', () => {
  it('200 concurrent PAGO callbacks: each applied once, with its entry and its notification, balances exact at every read', async () => {
    const m = await merchant();
    const list = await sales(m, 200);
    const work = Promise.all(list.map((s) => callback(s, 'PAGO')));
    const reads = await readWhile(m.accountId, work);
    const results = await work;

    expect(results.map((r) => [r.status, r.body.changed])).toEqual(list.map(() => [200, true]));
    expect(reads.mismatches).toEqual([]);
    expect(reads.reads).toBeGreaterThan(0);
    const states = await stateOf(list.map((s) => s.id));
    for (const s of list) {
      expect(states.get(s.id)).toEqual({ status: 'PAGO', entries: ['sale.paid'], events: ['sale.paid'] });
    }
    expect(await getBalance(db(), m.accountId)).toEqual(await expectedBalance(m.accountId));
    const net = list.reduce((acc, s) => acc + s.netAmount, 0);
    expect((await getBalance(db(), m.accountId)).total).toBe(net);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('repeated callbacks racing each other (same signature and re-signed) change a sale once', async () => {
    const m = await merchant();
    const list = await sales(m, 40);
    const now = Math.floor(Date.now() / 1000);
    const results = await Promise.all(
      list.flatMap((s) => [
        callback(s, 'PAGO', now),
        callback(s, 'PAGO', now), // the same bytes and signature: a replay
        callback(s, 'PAGO', now - 1), // the same report signed again: applied already, changes nothing
        callback(s, 'PAGO', now - 2),
      ]),
    );
    expect(results.every((r) => r.status === 200 && r.body.status === 'PAGO')).toBe(true);
    for (const [i, s] of list.entries()) {
      const changed = results.slice(i * 4, i * 4 + 4).filter((r) => r.body.changed);
      expect(changed, `sale ${s.id}`).toHaveLength(1);
    }
    const states = await stateOf(list.map((s) => s.id));
    for (const s of list) {
      expect(states.get(s.id)).toEqual({ status: 'PAGO', entries: ['sale.paid'], events: ['sale.paid'] });
    }
    expect(await getBalance(db(), m.accountId)).toEqual(await expectedBalance(m.accountId));
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('PAGO racing ESTORNADO: each sale ends as its answers say, with exactly the entries and notifications of that path', async () => {
    const m = await merchant();
    const list = await sales(m, 60);
    const results = await Promise.all(
      list.flatMap((s) => [callback(s, 'PAGO'), moveTo(server, m, s.id, 'ESTORNADO')]),
    );
    const states = await stateOf(list.map((s) => s.id));

    for (const [i, s] of list.entries()) {
      const [pago, estornado] = [results[i * 2]!, results[i * 2 + 1]!];
      expect(pago.status, `sale ${s.id}`).toBe(200);
      if (estornado.status === 200) {
        // PAGO first, then the refund, made as the refund route makes it (its hold, the fee given back) even
        // when the sale was paid while it was asked: never a bare move past the refund's admission
        expect(states.get(s.id)).toEqual({
          status: 'ESTORNADO',
          entries: ['sale.paid', 'sale.refund_held', 'sale.fee_returned', 'sale.refunded'],
          events: ['sale.paid', 'sale.refunded'],
        });
      } else {
        // ESTORNADO came first: refused (a PENDENTE sale cannot be refunded), nothing written for it
        expect(estornado.status).toBe(409);
        expect(states.get(s.id)).toEqual({ status: 'PAGO', entries: ['sale.paid'], events: ['sale.paid'] });
      }
    }
    expect(await getBalance(db(), m.accountId)).toEqual(await expectedBalance(m.accountId));
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('one sale named by uuid, by numeric id and by processor reference at once moves once', async () => {
    const m = await merchant();
    const list = await sales(m, 30);
    const results = await Promise.all(
      list.flatMap((s) => [
        moveTo(server, m, s.uuid, 'PAGO'),
        moveTo(server, m, s.id, 'PAGO'),
        callback(s, 'PAGO'),
      ]),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const states = await stateOf(list.map((s) => s.id));
    for (const s of list) {
      expect(states.get(s.id)).toEqual({ status: 'PAGO', entries: ['sale.paid'], events: ['sale.paid'] });
    }
    expect(await getBalance(db(), m.accountId)).toEqual(await expectedBalance(m.accountId));
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a refused report among concurrent ones fails only itself', async () => {
    const m = await merchant();
    const list = await sales(m, 30);
    const cancelled = list.slice(0, 10);
    for (const s of cancelled) expect((await moveTo(server, m, s.id, 'CANCELADO')).status).toBe(200);
    const results = await Promise.all(list.map((s) => callback(s, 'PAGO')));
    expect(results.map((r) => r.status)).toEqual(list.map((_, i) => (i < 10 ? 409 : 200)));
    const states = await stateOf(list.map((s) => s.id));
    for (const s of list.slice(10)) {
      expect(states.get(s.id)).toEqual({ status: 'PAGO', entries: ['sale.paid'], events: ['sale.paid'] });
    }
    for (const s of cancelled) {
      expect(states.get(s.id)).toEqual({ status: 'CANCELADO', entries: [], events: ['sale.canceled'] });
    }
    expect(await getBalance(db(), m.accountId)).toEqual(await expectedBalance(m.accountId));
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('processor references with quotes and backslashes name exactly their sale (they are written into the lock statement)', async () => {
    const m = await merchant();
    const [odd, other] = await sales(m, 2);
    const weird = "o'brien\\' OR '1'='1 \\x27 --";
    await db().query('UPDATE sales SET external_transaction_id = $2 WHERE id = $1', [odd!.id, weird]);
    const injected = await callback({ ...other!, externalTransactionId: "x' OR '1'='1" }, 'PAGO');
    expect(injected.status).toBe(404);
    const res = await callback({ ...odd!, externalTransactionId: weird }, 'PAGO');
    expect(res.status).toBe(200);
    const states = await stateOf([odd!.id, other!.id]);
    expect(states.get(odd!.id)?.status).toBe('PAGO');
    expect(states.get(other!.id)?.status).toBe('PENDENTE');
  });

  it('a reference holding a NUL names no sale: 400 at the callback, not found in a batch', async () => {
    const m = await merchant();
    const [s] = await sales(m, 1);
    const res = await callback({ ...s!, externalTransactionId: `${s!.externalTransactionId}\u0000` }, 'PAGO');
    expect(res.status).toBe(400);
    const [outcome] = await db().tx((tx) =>
      settleBatch(tx, server.runtime.platform.queue, [
        {
          ref: {
            kind: 'processor',
            processor: 'sandbox',
            externalTransactionId: `${s!.externalTransactionId}\u0000`,
          },
          status: 'PAGO',
        },
      ]),
    );
    expect(outcome).toBeInstanceOf(AppError);
    expect((outcome as AppError).code).toBe('NOT_FOUND');
    expect((await stateOf([s!.id])).get(s!.id)?.status).toBe('PENDENTE');
  });

  it('the balance statement sent with the COMMIT commits nothing when a balance row is missing', async () => {
    const m = await merchant();
    const before = await getBalance(db(), m.accountId);
    await expect(
      db().txEndingWith(async (tx) => {
        await tx.query('UPDATE sales SET updated_at = now() WHERE account_id = $1', [m.accountId]);
        return [
          null,
          balanceStatement([
            { accountId: m.accountId, bucket: 'available', amount: 500 },
            { accountId: 2 ** 40, bucket: 'available', amount: 500 },
          ]),
        ];
      }),
    ).rejects.toThrow(/balance rows missing: 1 of 2/);
    expect(await getBalance(db(), m.accountId)).toEqual(before);
    expect(() =>
      balanceStatement([{ accountId: 1, bucket: "blocked'; DROP TABLE sales; --", amount: 1 }]),
    ).toThrow(/unknown bucket/);
  });
});
