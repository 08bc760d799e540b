import type { RefundAllocation, RefundRow, RefundStatus } from './refunds.data.js';

/**
 * A refund as the API shows it (the refund route's answer, each sale.refunded body): the contract's
 * `{id, amountCents, status, reason, createdAt, completedAt}`, its id the refund's uuid.
 */
export interface RefundView {
  id: string;
  amountCents: number;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string | null;
  createdAt: string;
  completedAt: string | null;
  /** Who paid for it, party by party; with feeReturnedCents, adds up to amountCents. */
  allocation: RefundAllocation[];
  feeReturnedCents: number;
}

const STATUS: Record<RefundStatus, RefundView['status']> = {
  PENDING: 'pending',
  DONE: 'succeeded',
  FAILED: 'failed',
};

export function refundView(r: RefundRow): RefundView {
  return {
    id: r.uuid,
    amountCents: Number(r.amount),
    status: STATUS[r.status],
    reason: r.reason,
    createdAt: r.created_at.toISOString(),
    completedAt: r.completed_at === null ? null : r.completed_at.toISOString(),
    allocation: r.allocation.map((a) => ({
      party: a.party,
      amountCents: Number(a.amountCents),
      fromReceivableCents: Number(a.fromReceivableCents),
      fromAvailableCents: Number(a.fromAvailableCents),
    })),
    feeReturnedCents: Number(r.fee_returned),
  };
}
