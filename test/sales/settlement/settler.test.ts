import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/platform/db/db.js';
import { SaleSettler } from '../../../src/sales/settlement/settler.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { startServer, type TestServer } from '../../support/server.js';
import { sandboxSale } from '../fixtures.js';

// How the settler shares transactions (src/sales/settler.ts): a second batch starts beside a running one
// only when it would carry at least 8 reports; fewer wait for the running one and then go together, but not
// longer than a bound (the running one may be stuck behind a lock).

let server: TestServer;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server);
});
afterAll(() => server?.close());

/**
 * The real database, with each shared transaction held at its start until `release`: `started` counts the
 * transactions begun, `sizes` the reports each one decided (in the order they ran).
 */
function gatedDb(real: Db) {
  const started: number[] = [];
  const sizes: number[] = [];
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const db = Object.create(real) as Db;
  db.txEndingWith = async (fn, options) => {
    started.push(started.length);
    await gate;
    return real.txEndingWith(async (tx) => {
      const [decided, last] = await fn(tx);
      sizes.push((decided as unknown[]).length);
      return [decided, last];
    }, options);
  };
  return { db, started, sizes, release: () => open() };
}

/**
 * A settler on the gated database: one report (its batch starts and is held), then `more` reports while it is
 * held. Returns what was started so far, the gate's release and every report's result.
 */
async function oneHeldThen(more: number, maxWaitBesideMs: number) {
  const { db, started, sizes, release } = gatedDb(server.runtime.platform.db);
  const settler = new SaleSettler(db, server.runtime.platform.queue, undefined, maxWaitBesideMs);
  const sales = await Promise.all(Array.from({ length: 1 + more }, () => sandboxSale(server, m)));
  const settle = (id: number) => settler.settle({ ref: { kind: 'numeric', id }, status: 'PAGO' });
  const settled = [settle(sales[0]!.id)];
  await tick();
  for (const s of sales.slice(1)) settled.push(settle(s.id));
  return { started, sizes, release, results: () => Promise.all(settled) };
}

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

describe('SaleSettler batches', () => {
  it('reports that arrive while a batch runs wait for it when fewer than 8, then share one transaction', async () => {
    const { started, sizes, release, results } = await oneHeldThen(5, 60_000);
    await tick();
    expect(started).toHaveLength(1); // the five wait: a batch beside the running one would be too small
    release();
    expect((await results()).map((r) => [r.outcome, r.sale.status])).toEqual(
      Array(6).fill(['applied', 'PAGO']),
    );
    expect(started).toHaveLength(2); // the first, then the five together
    expect(sizes).toEqual([1, 5]);
  });

  it('starts a second batch beside a running one once 8 reports wait', async () => {
    const { started, sizes, release, results } = await oneHeldThen(8, 60_000);
    await tick();
    expect(started).toHaveLength(2);
    release();
    expect((await results()).every((r) => r.sale.status === 'PAGO')).toBe(true);
    expect(started).toHaveLength(2);
    expect(sizes.toSorted((a, b) => a - b)).toEqual([1, 8]); // the eight went together, not one batch started early
  });

  it('reports that wait beside a stuck batch go in a batch of their own once the bound has passed', async () => {
    const { started, sizes, release, results } = await oneHeldThen(3, 30);
    expect(started).toHaveLength(1);
    await tick(100);
    expect(started).toHaveLength(2); // the first is still held: the three did not wait for it past 30 ms
    release();
    expect((await results()).every((r) => r.sale.status === 'PAGO')).toBe(true);
    expect(started).toHaveLength(2);
    expect(sizes.toSorted((a, b) => a - b)).toEqual([1, 3]);
  });
});
