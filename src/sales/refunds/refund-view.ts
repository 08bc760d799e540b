import type { RefundRow, RefundStatus } from './refunds.data.js';

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
  };
}
