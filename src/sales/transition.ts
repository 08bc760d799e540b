import { onSalePaid } from '../carts/service.js';
import { type BalanceDeltas, postEntry } from '../ledger/ledger.js';
import type { Queryable } from '../platform/db.js';
import { type AppError, conflict, notFound } from '../platform/errors.js';
import type { Queue } from '../platform/queue.js';
import { recordNotification } from '../webhooks/outbox.js';
import { lockSale, updateSaleStatus } from './data.js';
import { ledgerEffect, moneyOf } from './ledger-effects.js';
import { salePostbackBody, saleWebhookBody } from './notifications.js';
import { scheduleReserveRelease } from './reserve.js';
import { checkTransition, eventFor, FINAL_STATUSES, isOpen, type SaleStatus } from './status-machine.js';
import type { SaleRow } from './types.js';

export interface TransitionResult {
  outcome: 'applied' | 'unchanged';
  sale: SaleRow;
}

/**
 * The one place a sale changes status. Inside the caller's transaction: lock the row, check the
 * transition, post its ledger entry, store the status, record its notifications (outbox). A repeated status
 * changes and notifies nothing; a refused one throws CONFLICT and writes nothing.
 */
export async function moveSale(
  tx: Queryable,
  queue: Queue,
  saleId: number,
  to: SaleStatus,
): Promise<TransitionResult> {
  const before = await lockSale(tx, saleId);
  if (!before) throw notFound(`sale ${saleId} not found`);
  return moveLockedSale(tx, queue, before, to);
}

/**
 * moveSale for a sale row the caller has locked. With `deferred`, the merchant's balance change is collected
 * there for the caller to apply just before its commit (the settlement batch, settle-batch.ts).
 */
export async function moveLockedSale(
  tx: Queryable,
  queue: Queue,
  before: SaleRow,
  to: SaleStatus,
  deferred?: BalanceDeltas,
): Promise<TransitionResult> {
  const check = checkTransition(before.status, to);
  if (check === 'same') return { outcome: 'unchanged', sale: before };
  if (check === 'refused') throw refusal(before.status, to);

  const effect = ledgerEffect(moneyOf(before), before.status, to);
  if (effect) {
    await postEntry(
      tx,
      { kind: effect.kind, refType: 'sale', refId: before.id, postings: effect.postings },
      deferred,
    );
  }
  const sale = await updateSaleStatus(tx, before.id, to, effect?.reserveHeld ?? before.reserve_held);
  await notifySaleStatus(tx, sale);

  if (to === 'PAGO' && isOpen(before.status)) {
    if (sale.reserve_held) await scheduleReserveRelease(tx, queue, sale.id);
    if (sale.cart_id !== null) await onSalePaid(tx, sale);
  }
  return { outcome: 'applied', sale };
}

export function refusal(from: SaleStatus, to: SaleStatus): AppError {
  return conflict(`a sale in status ${from} cannot become ${to}`);
}

/** sale.pending (webhooks only) for PENDENTE; both channels for final statuses; nothing otherwise. */
export async function notifySaleStatus(tx: Queryable, sale: SaleRow): Promise<void> {
  const event = eventFor(sale.status);
  if (!event) return;
  const postback =
    FINAL_STATUSES.has(sale.status) && sale.postback_url
      ? { url: sale.postback_url, body: salePostbackBody(sale) }
      : undefined;
  await recordNotification(tx, {
    accountId: sale.account_id,
    event,
    subjectType: 'sale',
    subjectId: sale.id,
    webhookBody: saleWebhookBody(sale),
    ...(postback ? { postback } : {}),
  });
}
