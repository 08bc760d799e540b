import { formatReais } from '../platform/money/money.js';
import type { ApprovalStatus, WithdrawalRow } from './data.js';
import type { WithdrawalFees } from './fees.js';

/** The withdrawal resource as the API shows it; key order is the API contract's table. */
export interface WithdrawalView {
  id: number;
  uuid: string;
  amount: string;
  netAmount: string;
  pixKey: string;
  pixKeyType: string;
  status: string;
  createdAt: string;
  updatedAt?: string;
  fees: { fixed: string; variable: string; total: string };
  approval: ApprovalView | null;
  /** Set on a recipient's withdrawal (split payments): the recipient's id. */
  recipientId?: string;
}

export interface ApprovalView {
  status: ApprovalStatus;
  requestedBy: string;
  decidedBy: string | null;
  decidedAt: string | null;
}

function approvalView(row: WithdrawalRow): ApprovalView | null {
  if (row.approval_status === null) return null;
  return {
    status: row.approval_status,
    requestedBy: row.approval_requested_by ?? '',
    decidedBy: row.approval_decided_by,
    decidedAt: row.approval_decided_at ? iso(row.approval_decided_at) : null,
  };
}

const iso = (d: Date) => new Date(d).toISOString();

function view(row: WithdrawalRow, status: string, updatedAt: string | undefined): WithdrawalView {
  return {
    id: row.id,
    uuid: row.uuid,
    amount: formatReais(row.amount),
    netAmount: formatReais(row.net_amount),
    pixKey: row.pix_key,
    pixKeyType: row.pix_key_type,
    status,
    createdAt: iso(row.created_at),
    ...(updatedAt ? { updatedAt } : {}),
    fees: {
      fixed: formatReais(row.fee_fixed),
      variable: formatReais(row.fee_variable),
      total: formatReais(row.fee_fixed + row.fee_variable),
    },
    approval: approvalView(row),
    ...(row.recipient_uuid ? { recipientId: row.recipient_uuid } : {}),
  };
}

/**
 * The creation response (no updatedAt). Every field but status is immutable and status at creation is
 * PENDING (AWAITING_REVIEW for one created while its account's payouts were held, kept as `created_held`), so
 * an idempotent replay rebuilds exactly the first response from the row.
 */
export function creationView(row: WithdrawalRow): WithdrawalView {
  return view(row, row.created_held ? 'AWAITING_REVIEW' : 'PENDING', undefined);
}

export function lookupView(row: WithdrawalRow): WithdrawalView & { updatedAt: string } {
  return view(row, row.status, iso(row.updated_at)) as WithdrawalView & { updatedAt: string };
}

/** The withdrawal notification body (the API contract, "Withdrawal notification"), keys in the table's order. */
export function withdrawalNotificationBody(
  row: WithdrawalRow,
  notifiedStatus: string,
  user: { id: number; name: string; email: string },
) {
  return {
    id: row.id,
    uuid: row.uuid,
    userId: row.account_id,
    amount: formatReais(row.amount),
    pixKey: row.pix_key,
    pixKeyType: row.pix_key_type,
    status: notifiedStatus,
    externalId: row.external_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    processedAt: row.processed_at ? iso(row.processed_at) : null,
    user: { id: user.id, name: user.name, email: user.email },
    type: 'WITHDRAWAL',
    // a recipient's withdrawal (split payments), notified to its platform account's webhooks
    ...(row.recipient_uuid ? { recipientId: row.recipient_uuid } : {}),
  };
}

/** The panel's fee preview: the amount, its fees, what the key receives and what the balance loses. */
export function feePreviewView(amountCents: number, fees: WithdrawalFees) {
  return {
    amount: formatReais(amountCents),
    fees: {
      fixed: formatReais(fees.fixed),
      variable: formatReais(fees.variable),
      total: formatReais(fees.total),
    },
    netAmount: formatReais(fees.net),
    debited: formatReais(amountCents),
  };
}
