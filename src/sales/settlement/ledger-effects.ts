import type { Posting } from '../../ledger/index.js';
import { allocate, type HeldBy, type Holder, type Party, partiesOf } from '../split.js';
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
  /** A split sale's parties (recipients, then the platform); absent: the merchant alone. */
  parties?: Party[];
}

/** The `processor` of a card sale made through an acquirer: this prefix and the acquirer's name. */
export const CARD_PROCESSOR_PREFIX = 'card:';

export const isCardSale = (s: Pick<SaleRow, 'payment_method'>) =>
  s.payment_method === 'CREDIT_CARD' || s.payment_method === 'DEBIT_CARD';

export function moneyOf(s: SaleRow): SaleMoney {
  const parties = partiesOf(s);
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
    ...(parties ? { parties } : {}),
  };
}

/** The part of a sale's net in each of a party's buckets. */
export interface Placement {
  available: number;
  blocked: number;
}

/** A sale's parties: its split's (recipients and the platform), or the merchant alone. */
export function partiesOfMoney(sale: SaleMoney): Party[] {
  return (
    sale.parties ?? [
      {
        holder: { accountId: sale.accountId },
        gross: sale.amount,
        net: sale.netAmount,
        liable: true,
        paysFees: true,
      },
    ]
  );
}

/**
 * Where a sale's net sits in a status, party by party (decisions.md, "Balance effects" and "Split payments").
 * What refunds take (`refundedNet`, and those in progress `refundPendingNet`) and what a lost dispute would
 * take (all that is left of the net) are shared among the liable parties by `allocate`. PAGO: each party's net
 * less its part of the refunds made, with its part of the refunds in progress and (the platform's) reserve
 * still held in blocked; a refund uses the held reserve first (that is what it is kept for), so a refund it
 * covers moves nothing out of available. An open dispute blocks what losing it would take. ESTORNADO: what a
 * party keeps after the whole net went back (a party that is not liable keeps its share). Any other status
 * holds nothing.
 */
export function placements(sale: SaleMoney, status: SaleStatus): Placement[] {
  const parties = partiesOfMoney(sale);
  if (status !== 'PAGO' && status !== 'ESTORNADO' && !isDispute(status)) {
    return parties.map(() => ({ available: 0, blocked: 0 }));
  }
  const taken = allocate(sale.refundedNet, parties);
  const claimedTotal =
    isDispute(status) || status === 'ESTORNADO' ? sale.netAmount : sale.refundedNet + sale.refundPendingNet;
  const claimed = allocate(claimedTotal, parties);
  return parties.map((p, i) => {
    const platform = 'accountId' in p.holder;
    const kept = p.net - claimed[i]!;
    if (status === 'ESTORNADO') return { available: kept, blocked: 0 };
    const left = p.net - taken[i]!;
    const pending = claimed[i]! - taken[i]!;
    // the platform's reserve, capped at its own net: what no refund (or the dispute) has used of it
    const reserve = platform ? Math.min(sale.reserveAmount, Math.max(0, p.net)) : 0;
    const reserveLeft = platform && sale.reserveHeld ? Math.max(0, reserve - claimed[i]!) : 0;
    const blocked = pending + reserveLeft;
    return { available: left - blocked, blocked };
  });
}

/** The merchant's placement of a sale without a split (its one party). */
export function placement(sale: SaleMoney, status: SaleStatus): Placement {
  return placements(sale, status)[0]!;
}

export interface LedgerEffect {
  kind: string;
  postings: Posting[];
  /** The sale's reserve_held after the entry. */
  reserveHeld: boolean;
}

const target = (holder: Holder, bucket: 'available' | 'blocked' | 'receivable') =>
  'accountId' in holder
    ? { accountId: holder.accountId, bucket }
    : { recipientId: holder.recipientId, bucket };

/**
 * The postings that take a sale's parties from one placement to the next: what leaves their buckets goes to
 * the processor (back to the payer), what enters them comes from it. Null when nothing moves.
 */
function shift(parties: Party[], from: Placement[], to: Placement[]): Posting[] | null {
  const postings: Posting[] = [];
  let total = 0;
  for (const [i, p] of parties.entries()) {
    const available = to[i]!.available - from[i]!.available;
    const blocked = to[i]!.blocked - from[i]!.blocked;
    if (available !== 0) postings.push({ target: target(p.holder, 'available'), amount: available });
    if (blocked !== 0) postings.push({ target: target(p.holder, 'blocked'), amount: blocked });
    total += available + blocked;
  }
  if (postings.length === 0) return null;
  if (total !== 0) postings.push({ target: { system: 'processor' }, amount: -total });
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
 * takes the fee: the payer's whole amount comes from the processor; each party's share enters its own
 * balance (a card sale's, its receivable bucket).
 */
export function ledgerEffect(sale: SaleMoney, from: SaleStatus, to: SaleStatus): LedgerEffect | null {
  if (to === 'PAGO' && isOpen(from)) {
    const paid = { ...sale, reserveHeld: sale.reserveAmount > 0, refundedNet: 0, refundPendingNet: 0 };
    const into = placements(paid, 'PAGO');
    const postings: Posting[] = [
      { target: { system: 'processor' }, amount: -sale.amount },
      { target: { system: 'fees' }, amount: sale.systemFee },
    ];
    for (const [i, p] of partiesOfMoney(sale).entries()) {
      postings.push(
        {
          target: target(p.holder, sale.receivable ? 'receivable' : 'available'),
          amount: into[i]!.available,
        },
        { target: target(p.holder, 'blocked'), amount: into[i]!.blocked },
      );
    }
    return { kind: 'sale.paid', reserveHeld: paid.reserveHeld, postings };
  }
  const reserveHeld = to === 'ESTORNADO' ? false : sale.reserveHeld;
  const parties = partiesOfMoney(sale);
  const after = { ...sale, reserveHeld };
  const postings = shift(parties, placements(sale, from), placements(after, to));
  if (!postings)
    return reserveHeld === sale.reserveHeld ? null : { kind: kindOf(from, to), postings: [], reserveHeld };
  return { kind: kindOf(from, to), postings, reserveHeld };
}

/**
 * Releasing a held reserve: in PAGO what of it no refund has used moves blocked → available; during an open
 * dispute what the dispute does not claim (nothing, unless the platform is not liable) moves.
 */
export function reserveRelease(sale: SaleMoney, status: SaleStatus): LedgerEffect | null {
  if (!sale.reserveHeld || (status !== 'PAGO' && !isDispute(status))) return null;
  const after = { ...sale, reserveHeld: false };
  const parties = partiesOfMoney(sale);
  const postings = shift(parties, placements(sale, status), placements(after, status)) ?? [];
  return { kind: 'sale.reserve_released', reserveHeld: false, postings };
}

/**
 * A change of a sale's refunds within its status (one held, one given back, one made that leaves the sale
 * PAGO): the difference between the placements. Null when nothing moves.
 */
export function refundEffect(
  kind: 'sale.refund_held' | 'sale.refund_released' | 'sale.refunded' | 'sale.dispute_lost',
  before: SaleMoney,
  after: SaleMoney,
  status: SaleStatus,
): LedgerEffect | null {
  const postings = shift(partiesOfMoney(before), placements(before, status), placements(after, status));
  return postings ? { kind, postings, reserveHeld: after.reserveHeld } : null;
}

/**
 * For a dispute of part of the sale (`netShare` of the net, as a refund of that part would take it): what each
 * party moves from available to blocked (negative: back) beside the dispute status's own move, so that while
 * it is open each party holds what it held before the dispute (a reserve, refunds in progress) plus what losing
 * the part takes from it, shared by the refunds' running totals (`allocate`), to the cent as the loss will.
 */
export function partDisputeMoves(sale: SaleMoney, status: SaleStatus, netShare: number): HeldBy[] {
  const parties = partiesOfMoney(sale);
  const paid = placements(sale, 'PAGO');
  const held = placements(sale, status);
  const before = allocate(sale.refundedNet, parties);
  const after = allocate(sale.refundedNet + netShare, parties);
  return parties.map((p, i) => ({
    holder: p.holder,
    amount: paid[i]!.blocked + after[i]! - before[i]! - held[i]!.blocked,
  }));
}

/**
 * What an open dispute of the sale holds of each party (what losing it takes): the liable parties' parts of
 * all that is left of the net. The merchant alone for a sale without a split.
 */
export function disputeClaims(sale: SaleMoney): HeldBy[] {
  const parties = partiesOfMoney(sale);
  const all = allocate(sale.netAmount, parties);
  const taken = allocate(sale.refundedNet, parties);
  return parties.map((p, i) => ({ holder: p.holder, amount: all[i]! - taken[i]! }));
}
