/**
 * The console's one client of the gateway: the /api/ops routes only, with the console's own cookie (HttpOnly,
 * sent by the browser only to /ops and /api/ops) and its CSRF token kept in memory. Types are the server's
 * route schemas, as types only.
 */
import type { Static } from 'typebox';
import type * as AccountSchemas from '../../../src/accounts/schemas';
import type * as Anticipations from '../../../src/anticipations/schemas';
import type * as Console from '../../../src/console/schemas';
import type * as Disputes from '../../../src/disputes/schemas';
import type * as Operators from '../../../src/operators/schemas';
import type * as Risk from '../../../src/risk/schemas';
import type * as Sales from '../../../src/sales/schemas';
import type * as Webhooks from '../../../src/webhooks/schemas';
import { ApiError, errorOf } from '../ui/api-error';

export type Operator = Static<typeof Operators.OperatorIdentity>;
export type OperatorRole = Operator['role'];
export type OperatorView = Static<typeof Operators.OperatorView>;
export type Invited = Static<typeof Operators.InvitedOperator>;
export type AuditPage = Static<typeof Operators.OperatorAuditPage>;
export type Enrolment = Static<typeof Operators.TotpEnrolment>;
export type AccountProfile = Static<typeof Console.AccountProfile>;
export type AccountsPage = Static<typeof Console.AccountsPage>;
export type AccountDetail = Static<typeof Console.AccountDetail>;
export type Review = Static<typeof Console.ReviewView>;
export type ReviewsPage = Static<typeof Console.ReviewsPage>;
export type OpsWithdrawal = Static<typeof Console.OpsWithdrawal>;
export type WithdrawalsPage = Static<typeof Console.WithdrawalsPage>;
export type Report = Static<typeof Console.Report>;
export type Sale = Static<typeof Sales.Sale>;
export type FeePlan = Static<typeof AccountSchemas.FeePlan>;
export type FeePlanInput = Static<typeof AccountSchemas.FeePlanBody>;
export type RiskRule = Static<typeof Risk.RiskRule>;
export type RiskRuleInput = Static<typeof Risk.RiskRuleBody>;
export type Anticipation = Static<typeof Anticipations.Anticipation>;
export type OpsAnticipation = Static<typeof Console.OpsAnticipation>;
export type Webhook = Static<typeof Webhooks.Webhook>;
export type Delivery = Static<typeof Webhooks.Delivery>;
export type ReconciliationRun = Static<typeof Console.ReconciliationRun>;
export type Discrepancy = Static<typeof Console.DiscrepancyInList>;
export type Dispute = Static<typeof Disputes.Dispute> & { accountId: number; accountName?: string };

const ORDER: OperatorRole[] = ['support', 'risk', 'finance', 'admin'];
let csrf = '';
let operator: Operator | null = null;
let onExpired: () => void = () => undefined;

export function whenSessionExpires(handler: () => void): void {
  onExpired = handler;
}

/** Whether the signed-in operator's role reaches `need` (the server decides; this hides what it would refuse). */
export function reaches(need: OperatorRole): boolean {
  return operator !== null && ORDER.indexOf(operator.role) >= ORDER.indexOf(need);
}

const SESSIONLESS = [
  '/api/ops/auth/login',
  '/api/ops/auth/me',
  '/api/ops/auth/accept-invitation',
  '/api/ops/auth/totp',
];

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' && csrf ? { 'x-csrf-token': csrf } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) {
    const { message, code } = errorOf(data, res.status);
    if (res.status === 401 && !SESSIONLESS.some((p) => path.startsWith(p))) onExpired();
    const wait = Number(res.headers.get('retry-after'));
    throw new ApiError(res.status, message, code, Number.isInteger(wait) && wait > 0 ? wait : null);
  }
  return data as T;
}

const query = (params: Record<string, string | number | undefined | null>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};

type Signed = { operator: Operator; csrfToken: string };
const signedIn = (s: Signed) => {
  csrf = s.csrfToken;
  operator = s.operator;
  return s.operator;
};

export const api = {
  me: async () => signedIn(await request<Signed>('GET', '/api/ops/auth/me')),
  login: async (email: string, password: string, totpCode?: string) =>
    signedIn(await request<Signed>('POST', '/api/ops/auth/login', { email, password, totpCode })),
  logout: async () => {
    await request('POST', '/api/ops/auth/logout');
    csrf = '';
    operator = null;
  },
  acceptInvitation: (token: string, password: string) =>
    request<Enrolment>('POST', '/api/ops/auth/accept-invitation', { token, password }),
  enableTotp: (token: string, code: string) =>
    request<void>('POST', '/api/ops/auth/totp/enable', { token, code }),

  accounts: (p: { q?: string; status?: string; cursor?: string }) =>
    request<AccountsPage>('GET', `/api/ops/accounts${query(p)}`),
  account: (id: number) => request<AccountDetail>('GET', `/api/ops/accounts/${id}`),
  documentUrl: (accountId: number, documentId: number) =>
    `/api/ops/accounts/${accountId}/documents/${documentId}`,
  accountAction: (id: number, action: string, reason?: string) =>
    request<AccountProfile>('POST', `/api/ops/accounts/${id}/${action}`, reason ? { reason } : {}),
  withdrawals: (p: { queue: string; accountId?: number; cursor?: string }) =>
    request<WithdrawalsPage>('GET', `/api/ops/withdrawals${query(p)}`),
  decideWithdrawal: (id: number, decision: 'release' | 'cancel') =>
    request<OpsWithdrawal>('POST', `/api/ops/withdrawals/${id}/${decision}`, {}),
  disputes: (p: { accountId?: number; open?: boolean }) =>
    request<{ data: Dispute[] }>(
      'GET',
      `/api/ops/disputes${query({ ...p, open: p.open === false ? 'false' : undefined })}`,
    ),
  reviews: (p: { kind?: string; cursor?: string }) =>
    request<ReviewsPage>('GET', `/api/ops/reviews${query(p)}`),
  decideReview: (id: number, decision: 'approve' | 'reject', reason?: string) =>
    request<Review>('POST', `/api/ops/reviews/${id}/${decision}`, reason ? { reason } : {}),
  report: (p: { from: string; to: string; by?: string }) =>
    request<Report>('GET', `/api/ops/reports/daily${query(p)}`),
  reportCsvUrl: (p: { from: string; to: string; by?: string }) =>
    `/api/ops/reports/daily${query({ ...p, format: 'csv' })}`,
  webhooks: (accountId: number) => request<Webhook[]>('GET', `/api/ops/accounts/${accountId}/webhooks`),
  deliveries: (accountId: number, webhookId: number) =>
    request<Delivery[]>('GET', `/api/ops/accounts/${accountId}/webhooks/${webhookId}/deliveries`),
  resend: (accountId: number, deliveryId: number) =>
    request<Delivery>('POST', `/api/ops/accounts/${accountId}/deliveries/${deliveryId}/resend`, {}),
  feePlans: () => request<{ data: FeePlan[]; defaultPlanId: number | null }>('GET', '/api/ops/fee-plans'),
  riskRules: () => request<{ data: RiskRule[] }>('GET', '/api/ops/risk-rules'),
  createRiskRule: (body: RiskRuleInput) => request<RiskRule>('POST', '/api/ops/risk-rules', body),
  deleteRiskRule: (id: number) => request<null>('DELETE', `/api/ops/risk-rules/${id}`),
  createFeePlan: (body: FeePlanInput) => request<FeePlan>('POST', '/api/ops/fee-plans', body),
  updateFeePlan: (id: number, body: Partial<FeePlanInput>) =>
    request<FeePlan>('PATCH', `/api/ops/fee-plans/${id}`, body),
  assignFeePlan: (accountId: number, planId: number) =>
    request<FeePlan>('POST', `/api/ops/accounts/${accountId}/fee-plan`, { planId }),
  anticipations: (status?: string) =>
    request<{ data: OpsAnticipation[]; nextCursor: string | null }>(
      'GET',
      `/api/ops/anticipations${query({ status })}`,
    ),
  decideAnticipation: (id: string, decision: 'approve' | 'reject') =>
    request<Anticipation>('POST', `/api/ops/anticipations/${id}/${decision}`, {}),
  reconciliationRuns: (schedule?: string) =>
    request<{ enabled: boolean; data: ReconciliationRun[] }>(
      'GET',
      `/api/ops/reconciliation/runs${query({ schedule })}`,
    ),
  reconcile: (from: string, to: string) =>
    request<ReconciliationRun>('POST', '/api/ops/reconciliation/runs', { from, to }),
  discrepancies: (all: boolean) =>
    request<{ data: Discrepancy[] }>(
      'GET',
      `/api/ops/reconciliation/discrepancies${query({ all: all ? 'true' : undefined })}`,
    ),
  resolveDiscrepancy: (id: number, note: string) =>
    request<Discrepancy>('POST', `/api/ops/reconciliation/discrepancies/${id}/resolve`, { note }),
  operators: () => request<{ data: OperatorView[] }>('GET', '/api/ops/operators'),
  invite: (email: string, role: OperatorRole) =>
    request<Invited>('POST', '/api/ops/operators', { email, role }),
  resendInvitation: (id: number) =>
    request<Invited>('POST', `/api/ops/operators/${id}/resend-invitation`, {}),
  disableOperator: (id: number) =>
    request<{ operator: OperatorView }>('POST', `/api/ops/operators/${id}/disable`, {}),
  changeOperatorRole: (id: number, role: OperatorRole) =>
    request<{ operator: OperatorView }>('PATCH', `/api/ops/operators/${id}`, { role }),
  audit: (p: { accountId?: number; cursor?: string }) =>
    request<AuditPage>('GET', `/api/ops/audit${query(p)}`),
};
