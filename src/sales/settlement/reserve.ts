import { postEntry } from '../../ledger/index.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { lockSale, setReserveHeld } from '../data.js';
import { moneyOf, reserveRelease } from './ledger-effects.js';

/** How long a paid sale's financial reserve stays blocked before it is released to available. */
export const RESERVE_HOLD_DAYS = 30;

export async function scheduleReserveRelease(tx: Queryable, queue: Queue, saleId: number): Promise<void> {
  await queue.send(tx, 'sales.release-reserve', { saleId }, { startAfterSeconds: RESERVE_HOLD_DAYS * 86400 });
}

/**
 * Releases a sale's held reserve (the job scheduled at its first PAGO). Idempotent: a released or refunded
 * sale holds no reserve and nothing happens.
 */
export async function releaseReserve(db: Db, saleId: number): Promise<boolean> {
  return db.tx(async (tx) => {
    const sale = await lockSale(tx, saleId);
    if (!sale) return false;
    const effect = reserveRelease(moneyOf(sale), sale.status);
    if (!effect) return false;
    await postEntry(tx, { kind: effect.kind, refType: 'sale', refId: sale.id, postings: effect.postings });
    await setReserveHeld(tx, sale.id, effect.reserveHeld);
    return true;
  });
}

export async function startReserveWorker(db: Db, queue: Queue): Promise<void> {
  await queue.work('sales.release-reserve', { batchSize: 1 }, async (jobs) => {
    for (const job of jobs) await releaseReserve(db, job.data.saleId);
  });
}
