/**
 * Every action the operator audit log records, a closed set: the console gives each a label in Brazilian
 * Portuguese (panel/src/ops/labels.ts, typed by this list, so a new action without a label does not compile).
 */
export const OPERATOR_AUDIT_ACTIONS = [
  'account.approve',
  'account.reject',
  'account.suspend',
  'account.reactivate',
  'account.close',
  'account.payout-hold',
  'account.payout-release',
  'account.card-payments-resume',
  'account.fee-plan',
  'withdrawal.released',
  'withdrawal.cancelled',
  'review.approved',
  'review.rejected',
  'review.expired',
  'risk.block',
  'risk.review',
  'risk_rule.created',
  'risk_rule.deleted',
  'fee_plan.created',
  'fee_plan.updated',
  'anticipation.approved',
  'anticipation.rejected',
  'reconciliation.requested',
  'discrepancy.resolved',
  'delivery.resent',
  'operator.invited',
  'operator.invitation_resent',
  'operator.enrolled',
  'operator.disabled',
  'operator.role_changed',
  'login.succeeded',
  'login.failed',
  'logout',
  'denied',
] as const;

export type OperatorAuditAction = (typeof OPERATOR_AUDIT_ACTIONS)[number];
