import type { Posting } from '../../ledger/index.js';
import type { SaleRow } from '../types.js';
import { isDispute, isOpen, type SaleStatus } from './status-machine.js';

/** What of a sale the ledger needs: its money and whether its reserve still sits in blocked. */
export interface SaleMoney {
  accountId: number;
  amount: number;
  systemFee: number;
  netAmount: number;
  reserveAmount: number;
  reserveHeld: boolean;
  refundHeld: boolean;
  /** A card sale: its paid net goes to receivable, reaching available installment by installment. */
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
    refundHeld: s.refund_held,
    // card sales made through an acquirer (processor `card:<acquirer>`); the sandbox's hand-moved card sales
    // keep their net in available as any sale
    receivable: isCardSale(s) && s.processor.startsWith(CARD_PROCESSOR_PREFIX),
  };
}

/** What of the sale's net sits in available while it is PAGO: all of it but a reserve still held. */
function inAvailableOf(sale: SaleMoney): number {
  return sale.netAmount - (sale.reserveHeld ? sale.reserveAmount : 0);
}

/** Postings moving `amount` between the merchant's two buckets. */
function transfer(sale: SaleMoney, from: 'available' | 'blocked', amount: number): Posting[] {
  const to = from === 'available' ? 'blocked' : 'available';
  return [
    { target: { accountId: sale.accountId, bucket: from }, amount: -amount },
    { target: { accountId: sale.accountId, bucket: to }, amount },
  ];
}

export interface LedgerEffect {
  kind: string;
  postings: Posting[];
  /** The sale's reserve_held after the entry. */
  reserveHeld: boolean;
  /** The sale's refund_held after the entry. */
  refundHeld: boolean;
}

/**
 * The balance effect of one allowed transition (decisions.md, "Balance effects"). Invariants per sale:
 * PAGO → net − heldReserve in available, heldReserve in blocked; open dispute (MED/CHARGEBACK) → the whole
 * net in blocked; ESTORNADO → nothing of the net left in the account (the fee stays with the gateway).
 * A refund the merchant asked for (refundHold) also keeps the whole net in blocked, as a dispute does, until
 * the processor answers. No guard: a refund the processor reports unasked, or a dispute, that the available
 * balance cannot cover drives it negative (merchant debt), which then blocks cashouts until sales cover it.
 */
export function ledgerEffect(sale: SaleMoney, from: SaleStatus, to: SaleStatus): LedgerEffect | null {
  const available = { accountId: sale.accountId, bucket: 'available' as const };
  const blocked = { accountId: sale.accountId, bucket: 'blocked' as const };
  const processor = { system: 'processor' as const };
  const held = sale.reserveHeld ? sale.reserveAmount : 0;
  const inAvailable = inAvailableOf(sale);
  const refundHeld = sale.refundHeld;

  if (to === 'PAGO' && isOpen(from)) {
    return {
      kind: 'sale.paid',
      reserveHeld: sale.reserveAmount > 0,
      refundHeld: false,
      postings: [
        { target: processor, amount: -sale.amount },
        { target: { system: 'fees' }, amount: sale.systemFee },
        {
          target: sale.receivable ? { accountId: sale.accountId, bucket: 'receivable' } : available,
          amount: sale.netAmount - sale.reserveAmount,
        },
        { target: blocked, amount: sale.reserveAmount },
      ],
    };
  }
  // with a refund held the whole net is in blocked already, and stays there while the refund is pending
  if (refundHeld && ((to === 'PAGO' && isDispute(from)) || (isDispute(to) && from === 'PAGO'))) return null;
  if (to === 'PAGO' && isDispute(from)) {
    return {
      kind: 'sale.dispute_won',
      reserveHeld: sale.reserveHeld,
      refundHeld,
      postings: transfer(sale, 'blocked', inAvailable),
    };
  }
  if (isDispute(to) && from === 'PAGO') {
    return {
      kind: 'sale.dispute_opened',
      reserveHeld: sale.reserveHeld,
      refundHeld,
      postings: transfer(sale, 'available', inAvailable),
    };
  }
  if (to === 'ESTORNADO' && from === 'PAGO' && refundHeld) {
    return {
      kind: 'sale.refunded',
      reserveHeld: false,
      refundHeld: false,
      postings: [
        { target: blocked, amount: -sale.netAmount },
        { target: processor, amount: sale.netAmount },
      ],
    };
  }
  if (to === 'ESTORNADO' && from === 'PAGO') {
    return {
      kind: 'sale.refunded',
      reserveHeld: false,
      refundHeld: false,
      postings: [
        { target: available, amount: -inAvailable },
        { target: blocked, amount: -held },
        { target: processor, amount: sale.netAmount },
      ],
    };
  }
  if (to === 'ESTORNADO' && isDispute(from)) {
    return {
      kind: 'sale.dispute_lost',
      reserveHeld: false,
      refundHeld: false,
      postings: [
        { target: blocked, amount: -sale.netAmount },
        { target: processor, amount: sale.netAmount },
      ],
    };
  }
  return null;
}

/**
 * Releasing a held reserve: in PAGO it moves blocked → available; during an open dispute the whole net is
 * already blocked by the dispute, so only the flag changes (the dispute's end then moves or takes it all).
 */
export function reserveRelease(sale: SaleMoney, status: SaleStatus): LedgerEffect | null {
  if (!sale.reserveHeld) return null;
  // a held refund keeps the whole net in blocked: the reserve goes with it (out, or back when it is released)
  if (status === 'PAGO' && !sale.refundHeld) {
    return {
      kind: 'sale.reserve_released',
      reserveHeld: false,
      refundHeld: false,
      postings: transfer(sale, 'blocked', sale.reserveAmount),
    };
  }
  if (isDispute(status) || status === 'PAGO') {
    return { kind: 'sale.reserve_released', reserveHeld: false, refundHeld: sale.refundHeld, postings: [] };
  }
  return null;
}

/**
 * Holding a sale for a refund the merchant asked for: in PAGO what the refund will take from available moves to
 * blocked now (a guarded entry: refused when available cannot cover it), so it cannot also be withdrawn; in an
 * open dispute the whole net is blocked already, and only the flag changes.
 */
export function refundHold(sale: SaleMoney, status: SaleStatus): LedgerEffect | null {
  if (sale.refundHeld) return null;
  if (isDispute(status)) {
    return { kind: 'sale.refund_held', reserveHeld: sale.reserveHeld, refundHeld: true, postings: [] };
  }
  if (status !== 'PAGO') return null;
  return {
    kind: 'sale.refund_held',
    reserveHeld: sale.reserveHeld,
    refundHeld: true,
    postings: transfer(sale, 'available', inAvailableOf(sale)),
  };
}

/**
 * Giving back a held refund the processor did not make: in PAGO blocked → available; during an open dispute
 * only the flag changes (the dispute holds the whole net itself).
 */
export function refundRelease(sale: SaleMoney, status: SaleStatus): LedgerEffect | null {
  if (!sale.refundHeld) return null;
  if (status === 'PAGO') {
    return {
      kind: 'sale.refund_released',
      reserveHeld: sale.reserveHeld,
      refundHeld: false,
      postings: transfer(sale, 'blocked', inAvailableOf(sale)),
    };
  }
  return { kind: 'sale.refund_released', reserveHeld: sale.reserveHeld, refundHeld: false, postings: [] };
}
