import type { Posting } from '../../ledger/index.js';
import type { SaleRow } from '../types.js';
import { isDispute, isOpen, type SaleStatus } from './status-machine.js';

/** What of a sale the ledger needs: its money, its reserve, and its refunds made and in progress. */
export interface SaleMoney {
  accountId: number;
  amount: number;
  systemFee: number;
  netAmount: number;
  reserveAmount: number;
  reserveHeld: boolean;
  /** The net the refunds made so far took out of the account. */
  refundedNet: number;
  /** The net held for refunds still waiting for their processor. */
  refundPendingNet: number;
  /**
   * A card sale: its paid net goes to receivable, reaching available installment by installment; later moves
   * count it as in available (decisions.md, "Receivables and later moves").
   */
  receivable: boolean;
}

/** The `processor` of a card sale made through an acquirer: this prefix and the acquirer's name. */
export const CARD_PROCESSOR_PREFIX = 'card:';

export const isCardSale = (s: Pick<SaleRow, 'payment_method'>) =>
  s.payment_method === 'CREDIT_CARD' || s.payment_method === 'DEBIT_CARD';

export function moneyOf(s: SaleRow): SaleMoney {
  return {
    accountId: s.account_id,
    // what the payer paid: a boleto's fine and interest, or its discount, change it from the sale's amount
    amount: s.paid_amount ?? s.amount,
    systemFee: s.system_fee,
    netAmount: s.net_amount,
    reserveAmount: s.reserve_amount,
    reserveHeld: s.reserve_held,
    refundedNet: s.refunded_net,
    refundPendingNet: s.refund_pending_net,
    // card sales made through an acquirer (processor `card:<acquirer>`); the sandbox's hand-moved card sales
    // keep their net in available as any sale
    receivable: isCardSale(s) && s.processor.startsWith(CARD_PROCESSOR_PREFIX),
  };
}

/** The part of a sale's net in each of the merchant's buckets. */
export interface Placement {
  available: number;
  blocked: number;
}

/**
 * Where a sale's net sits in a status (decisions.md, "Balance effects"). PAGO: what refunds have not taken,
 * with the refunds in progress and the reserve still held in blocked; a refund uses the held reserve first
 * (that is what it is kept for), so a refund it covers moves nothing out of available. An open dispute blocks
 * all that is left. Any other status holds nothing: never paid, or refunded in full.
 */
export function placement(sale: SaleMoney, status: SaleStatus): Placement {
  const left = sale.netAmount - sale.refundedNet;
  if (isDispute(status)) return { available: 0, blocked: left };
  if (status !== 'PAGO') return { available: 0, blocked: 0 };
  const claimed = sale.refundedNet + sale.refundPendingNet;
  const reserveLeft = sale.reserveHeld ? Math.max(0, sale.reserveAmount - claimed) : 0;
  const blocked = sale.refundPendingNet + reserveLeft;
  return { available: left - blocked, blocked };
}

export interface LedgerEffect {
  kind: string;
  postings: Posting[];
  /** The sale's reserve_held after the entry. */
  reserveHeld: boolean;
}

/**
 * The postings that take a sale from one placement to the next: what leaves the merchant's buckets goes to the
 * processor (back to the payer), what enters them comes from it. Null when nothing moves.
 */
function shift(accountId: number, from: Placement, to: Placement): Posting[] | null {
  const available = to.available - from.available;
  const blocked = to.blocked - from.blocked;
  if (available === 0 && blocked === 0) return null;
  const postings: Posting[] = [];
  if (available !== 0) postings.push({ target: { accountId, bucket: 'available' }, amount: available });
  if (blocked !== 0) postings.push({ target: { accountId, bucket: 'blocked' }, amount: blocked });
  if (available + blocked !== 0)
    postings.push({ target: { system: 'processor' }, amount: -(available + blocked) });
  return postings;
}

function kindOf(from: SaleStatus, to: SaleStatus): string {
  if (isDispute(to)) return 'sale.dispute_opened';
  if (to === 'PAGO') return 'sale.dispute_won';
  if (isDispute(from)) return 'sale.dispute_lost';
  return 'sale.refunded';
}

/**
 * The balance effect of one allowed transition: the difference between the sale's placements before and after.
 * No guard: a refund the processor reports unasked, or a dispute, that the available balance cannot cover
 * drives it negative (merchant debt), which then blocks cashouts until sales cover it. Becoming PAGO also
 * takes the fee: the payer's whole amount comes from the processor.
 */
export function ledgerEffect(sale: SaleMoney, from: SaleStatus, to: SaleStatus): LedgerEffect | null {
  if (to === 'PAGO' && isOpen(from)) {
    const paid = { ...sale, reserveHeld: sale.reserveAmount > 0, refundedNet: 0, refundPendingNet: 0 };
    const into = placement(paid, 'PAGO');
    return {
      kind: 'sale.paid',
      reserveHeld: paid.reserveHeld,
      postings: [
        { target: { system: 'processor' }, amount: -sale.amount },
        { target: { system: 'fees' }, amount: sale.systemFee },
        {
          target: { accountId: sale.accountId, bucket: sale.receivable ? 'receivable' : 'available' },
          amount: into.available,
        },
        { target: { accountId: sale.accountId, bucket: 'blocked' }, amount: into.blocked },
      ],
    };
  }
  const reserveHeld = to === 'ESTORNADO' ? false : sale.reserveHeld;
  const postings = shift(sale.accountId, placement(sale, from), placement(sale, to));
  if (!postings)
    return reserveHeld === sale.reserveHeld ? null : { kind: kindOf(from, to), postings: [], reserveHeld };
  return { kind: kindOf(from, to), postings, reserveHeld };
}

/**
 * Releasing a held reserve: in PAGO what of it no refund has used moves blocked → available; during an open
 * dispute the whole net is blocked by the dispute, so only the flag changes.
 */
export function reserveRelease(sale: SaleMoney, status: SaleStatus): LedgerEffect | null {
  if (!sale.reserveHeld || (status !== 'PAGO' && !isDispute(status))) return null;
  const after = { ...sale, reserveHeld: false };
  const postings = shift(sale.accountId, placement(sale, status), placement(after, status)) ?? [];
  return { kind: 'sale.reserve_released', reserveHeld: false, postings };
}

/**
 * A change of a sale's refunds within its status (one held, one given back, one made that leaves the sale
 * PAGO): the difference between the placements. Null when nothing moves.
 */
export function refundEffect(
  kind: 'sale.refund_held' | 'sale.refund_released' | 'sale.refunded',
  before: SaleMoney,
  after: SaleMoney,
  status: SaleStatus,
): LedgerEffect | null {
  const postings = shift(before.accountId, placement(before, status), placement(after, status));
  return postings ? { kind, postings, reserveHeld: after.reserveHeld } : null;
}
