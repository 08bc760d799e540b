import { PspError } from '../../payment-standards/index.js';
import type { Db } from '../../platform/db/db.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { PublicId } from '../../platform/ids/public-ids.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { findSaleRow } from '../charges.data.js';
import { ownedSale, saleJson } from '../lookup.js';
import type { PaymentMethods } from '../processors/method.js';
import { RefundNotMade } from '../processors/processor.js';
import { type RefundView, refundView } from './refund-view.js';
import { findRefund } from './refunds.data.js';
import { completeRefundTold, failRefund, openRefund } from './refunds.js';

/** The refund route's answer: the Sale object (JSON text, as stored) with the refund it made or found. */
export interface RefundAnswer {
  /** The Sale object with `refund` appended, as JSON text. */
  body: string;
  replayed: boolean;
}

/** The Sale object's JSON text with `refund` as its last key. */
export function withRefund(saleJsonText: string, refund: RefundView): string {
  return `${saleJsonText.slice(0, -1)},"refund":${JSON.stringify(refund)}}`;
}

/**
 * POST /api/transactions/{id}/refund: opens a refund of the sale (or finds the one its Idempotency-Key opened),
 * then asks the sale's processor for it. 'done' → made at once; otherwise the refund stays in progress, its
 * money held, until the processor reports its end. A repeat with the key asks the processor again for the same
 * refund (never a second one). Answers the Sale with the refund (`refund`).
 */
export async function refundSale(
  db: Db,
  queue: Queue,
  methods: Pick<PaymentMethods, 'refunders' | 'refundRefusal'>,
  accountId: number,
  id: PublicId,
  request: { amountCents: number | null; key: string | null },
): Promise<RefundAnswer> {
  const sale = ownedSale(await findSaleRow(db, id), accountId); // 404 / 403 as the lookup answers them
  const processor = methods.refunders.get(sale.processor);
  if (!processor)
    throw new AppError('PROCESSOR_UNAVAILABLE', 'No payment processor is configured to refund sales');
  const refusal = await methods.refundRefusal(sale);
  if (refusal) throw new AppError('CONFLICT', refusal);
  const { refund, replayed } = await openRefund(db, sale.id, request.amountCents, request.key);
  // as they are now: a refund made or ended since (by this request or the processor's report), the sale after it
  const now = async () =>
    withRefund(await saleJson(db, sale.id), refundView((await findRefund(db, refund.id)) ?? refund));
  if (refund.status === 'DONE') return { body: await now(), replayed };
  const outcome = await processor
    .refund(
      {
        id: sale.id,
        uuid: sale.uuid,
        amount: sale.amount,
        externalTransactionId: sale.external_transaction_id,
      },
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
  // made now: the Sale as this refund left it (refundedAmount after it), whatever other refunds do meanwhile
  const made = outcome === 'done' ? await completeRefundTold(db, queue, refund.id) : null;
  return { body: made ? withRefund(made.sale.public_json, made.refund) : await now(), replayed };
}
