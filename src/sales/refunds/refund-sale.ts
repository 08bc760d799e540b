import { PspError } from '../../payment-standards/index.js';
import type { Db } from '../../platform/db/db.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { PublicId } from '../../platform/ids/public-ids.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { findSaleRow } from '../charges.data.js';
import { ownedSale } from '../lookup.js';
import { type Refunder, RefundNotMade } from '../processors/processor.js';
import { completeRefund, failRefund, openRefund } from './refunds.js';

/**
 * POST /api/transactions/{id}/refund: opens a refund of the sale (or finds the one its Idempotency-Key opened),
 * then asks the sale's processor for it. 'done' → made at once; otherwise the refund stays in progress, its
 * money held, until the processor reports its end. A repeat with the key asks the processor again for the same
 * refund (never a second one).
 */
export async function refundSale(
  db: Db,
  queue: Queue,
  processors: ReadonlyMap<string, Refunder>,
  accountId: number,
  id: PublicId,
  request: { amountCents: number | null; key: string | null },
): Promise<{ saleId: number; replayed: boolean }> {
  const sale = ownedSale(await findSaleRow(db, id), accountId); // 404 / 403 as the lookup answers them
  const processor = processors.get(sale.processor);
  if (!processor)
    throw new AppError('PROCESSOR_UNAVAILABLE', 'No payment processor is configured to refund sales');
  const { refund, replayed } = await openRefund(db, sale.id, request.amountCents, request.key);
  if (refund.status === 'DONE') return { saleId: sale.id, replayed };
  const outcome = await processor
    .refund(
      { uuid: sale.uuid, amount: sale.amount, externalTransactionId: sale.external_transaction_id },
      { id: refund.id, amount: refund.amount },
    )
    .catch(async (err: unknown) => {
      // never asked: the money is the merchant's again. Otherwise the refund may be under way: its money stays
      // held until the processor reports its end (releaseForgottenRefunds covers a processor that never will)
      if (err instanceof RefundNotMade) await failRefund(db, refund.id);
      if (err instanceof AppError) throw err; // the sale's own answer (its money gone, its status changed)
      const reason = err instanceof PspError ? err.message.slice(0, 200) : 'no usable answer';
      throw new AppError('PROCESSOR_ERROR', `The payment processor failed to refund: ${reason}`);
    });
  if (outcome === 'done') await completeRefund(db, queue, refund.id);
  return { saleId: sale.id, replayed };
}
