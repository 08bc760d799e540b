import { type JournalEntry, type ReceivableShare, scheduleReceivables } from '../../ledger/index.js';
import { type Queryable, whenCommitted } from '../../platform/db/db.js';
import { type AppError, conflict, notFound } from '../../platform/errors/app-error.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { sales } from '../../platform/observability/metrics.js';
import { type NotificationFact, recordNotification } from '../../webhooks/index.js';
import { onCartSalePaid } from '../cart-rules.js';
import { lockSale } from '../data.js';
import type { RefundView } from '../refunds/refund-view.js';
import type { SaleRow } from '../types.js';
import { ledgerEffect, moneyOf } from './ledger-effects.js';
import { salePostbackBody, saleWebhookBody } from './notifications.js';
import { scheduleReserveRelease } from './reserve.js';
import { checkTransition, eventFor, FINAL_STATUSES, isOpen, type SaleStatus } from './status-machine.js';
import { movedSale, writeMoves } from './write-moves.js';

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
  /** The refund that makes the sale ESTORNADO (its last): its sale.refunded body carries it. */
  refund?: RefundView,
): Promise<TransitionResult> {
  const before = await lockSale(tx, saleId);
  if (!before) throw notFound(`sale ${saleId} not found`);
  const check = checkTransition(before.status, to);
  if (check === 'same') return { outcome: 'unchanged', sale: before };
  if (check === 'refused') throw refusal(before.status, to);
  const [sale] = await applyMoves(tx, queue, [{ before, to, ...(refund ? { refund } : {}) }]);
  return { outcome: 'applied', sale: sale! };
}

export function refusal(from: SaleStatus, to: SaleStatus): AppError {
  return conflict(`a sale in status ${from} cannot become ${to}`);
}

/** A transition already checked ('apply') of a sale the caller has locked. */
export interface Move {
  before: SaleRow;
  to: SaleStatus;
  /** A move to ESTORNADO made by this refund (its last): its sale.refunded body tells it. */
  refund?: RefundView;
  /**
   * A move out of a dispute lost in part (disputed.ts, loseDisputedPart): back to PAGO, it tells sale.refunded
   * (the part lost went back to the payer) and its entry frees what the dispute held beyond that part.
   */
  lostInPart?: boolean;
}

/**
 * Writes checked moves of distinct locked sales in one statement (writeMoves: status, notifications,
 * ledger entries), then schedules what a first payment starts (reserve release, cart), then moves the
 * merchants' balance rows: in a statement of its own, or, given `atCommit`, handed to it to run with the
 * COMMIT (Db.txEndingWith). Returns the sales as stored, in the order given.
 */
export async function applyMoves(
  tx: Queryable,
  queue: Queue,
  moves: Move[],
  atCommit?: (statement: string) => void,
): Promise<SaleRow[]> {
  if (moves.length === 0) return [];
  const effects = moves.map(({ before, to, lostInPart }) => {
    const effect = ledgerEffect(moneyOf(before), before.status, to);
    return effect && lostInPart ? { ...effect, kind: 'sale.dispute_released' } : effect;
  });
  const updates = moves.map(({ before, to }, i) => ({
    before,
    status: to,
    reserveHeld: effects[i]?.reserveHeld ?? before.reserve_held,
  }));
  // the bodies tell the sale as the move stores it (movedSale: status, paid and refunded amounts)
  const facts = moves.flatMap(
    ({ before, to, refund, lostInPart }) =>
      saleFact(movedSale(before, to), refund, lostInPart ? 'sale.refunded' : undefined) ?? [],
  );
  const entries = effects.flatMap((effect, i): JournalEntry[] =>
    effect
      ? [{ kind: effect.kind, refType: 'sale', refId: moves[i]!.before.id, postings: effect.postings }]
      : [],
  );
  const { sales, balances } = await writeMoves(tx, updates, facts, entries);
  const receivables: ReceivableShare[] = [];
  for (const [i, { before, to }] of moves.entries()) {
    const sale = sales[i]!;
    if (to === 'PAGO' && isOpen(before.status)) {
      if (sale.reserve_held) await scheduleReserveRelease(tx, queue, sale.id);
      // a checkout session takes one payment: its other charges awaiting payment are cancelled (charges.ts)
      if (sale.checkout_session_id !== null) {
        await queue.send(tx, 'sales.cancel-session-charges', { saleId: sale.id });
      }
      await onCartSalePaid(tx, sale);
      if (moneyOf(sale).receivable) {
        // each party's installments: what the sale.paid entry put in its receivable bucket
        for (const p of effects[i]?.postings ?? []) {
          if ('system' in p.target || p.target.bucket !== 'receivable') continue;
          receivables.push({
            accountId: sale.account_id,
            ...('recipientId' in p.target ? { recipientId: p.target.recipientId } : {}),
            saleId: sale.id,
            saleUuid: sale.uuid,
            installments: sale.installments ?? 1,
            amount: p.amount,
          });
        }
      }
    }
  }
  await scheduleReceivables(tx, receivables);
  if (balances && atCommit) atCommit(balances);
  else if (balances) await tx.query(balances);
  return sales;
}

/**
 * sale.pending (webhooks only) for a PENDENTE PIX or boleto sale, the API contract's "PIX or boleto generated, awaiting
 * payment"; both channels for final statuses; nothing otherwise.
 */
export async function notifySaleStatus(tx: Queryable, sale: SaleRow): Promise<void> {
  const fact = saleFact(sale);
  if (fact) await recordNotification(tx, fact);
  else countWithoutFact(tx, sale);
}

/**
 * A sale reaching a status that records no fact (a card sale created PENDENTE, a debit already paid) is counted
 * here, once committed; a fact counts its own status otherwise (metrics.countFact).
 */
export function countWithoutFact(tx: Queryable, sale: SaleRow): void {
  whenCommitted(tx, () => sales.inc({ status: sale.status }));
}

const AWAITS_PAYMENT_CODE = new Set(['PIX', 'PIX_AUTOMATICO', 'BOLETO']);

/**
 * The fact of a sale's status, both bodies built from `sale` as stored. A sale.refunded carries `refund`: the
 * refund that made it ESTORNADO (a dispute lost records one too), or null when none did (a move by the processor's
 * report), and,
 * in the postback too, `refundedAmount`.
 * `instead` replaces the status's event (a sale back in PAGO from a dispute lost in part tells sale.refunded).
 */
function saleFact(sale: SaleRow, refund?: RefundView, instead?: 'sale.refunded'): NotificationFact | null {
  const event = instead ?? eventFor(sale.status);
  if (!event) return null;
  if (sale.status === 'PENDENTE' && !AWAITS_PAYMENT_CODE.has(sale.payment_method)) return null;
  const told = event === 'sale.refunded' ? { refund: refund ?? null } : {};
  // every sale.refunded body tells the refunded total after it beside `refund` (the webhook's always does)
  const refunded = event === 'sale.refunded' ? { refundedAmount: String(sale.refunded_amount) } : {};
  const postback =
    FINAL_STATUSES.has(sale.status) && sale.postback_url
      ? { url: sale.postback_url, body: { ...salePostbackBody(sale), ...refunded, ...told } }
      : undefined;
  return {
    accountId: sale.account_id,
    event,
    subjectType: 'sale',
    subjectId: sale.id,
    webhookBody: { ...saleWebhookBody(sale), ...told },
    ...(postback ? { postback } : {}),
  };
}
