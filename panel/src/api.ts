/**
 * The panel's one client of the gateway: the documented panel routes only, with the session cookie (HttpOnly,
 * sent by the browser) and the CSRF token kept in memory (never in localStorage). Errors come back as the
 * messages the API wrote, in words.
 */
import type { Static } from 'typebox';
import type * as Accounts from '../../src/accounts/schemas';
import type * as Anticipations from '../../src/anticipations/schemas';
import type * as Audit from '../../src/audit/schemas';
import type * as Auth from '../../src/auth/schemas';
import type * as Team from '../../src/auth/users/schemas';
import type * as Cards from '../../src/cards/schemas';
import type * as Customers from '../../src/customers/schemas';
import type * as Disputes from '../../src/disputes/schemas';
import type * as Ledger from '../../src/ledger/schemas';
import type * as Onboard from '../../src/onboarding/schemas';
import type * as Recipients from '../../src/recipients/schemas';
import type * as Charges from '../../src/sales/charges.schemas';
import type * as Sales from '../../src/sales/schemas';
import type * as Sandbox from '../../src/sandbox/schemas';
import type * as Subscriptions from '../../src/subscriptions/schemas';
import type * as Webhooks from '../../src/webhooks/schemas';
import type * as Withdrawals from '../../src/withdrawals/schemas';
import { ApiError, errorOf } from './ui/api-error';

export { ApiError };

// The bodies are the server's own route schemas (TypeBox), as types only: nothing of the server reaches the
// bundle, and a field the server renames breaks `tsc -p panel` instead of showing an empty cell.
export type User = Static<typeof Auth.PanelUser>;
export type Session = Static<typeof Auth.SessionResponse>;
export type Balance = Static<typeof Ledger.PanelBalance>;
export type Sale = Static<typeof Sales.Sale>;
export type Customer = Static<typeof Customers.Customer>;
export type CustomersPage = Static<typeof Customers.CustomersPage>;
export type Subscription = Static<typeof Subscriptions.Subscription>;
export type SubscriptionsPage = Static<typeof Subscriptions.SubscriptionsPage>;
export type PlansPage = Static<typeof Subscriptions.PlansPage>;
export type Plan = Static<typeof Subscriptions.Plan>;
export type PlanInput = Static<typeof Subscriptions.PlanBody>;
export type SubscriptionInput = Static<typeof Subscriptions.SubscriptionBody>;
export type CustomerInput = Static<typeof Customers.CustomerBody>;
/** The refund route's answer: the Sale after the refund, with the refund. */
export type RefundedSale = Static<typeof Sales.RefundedSale>;
/** A sale's refunds, oldest first, each with who paid it. */
export type Refunds = Static<typeof Sales.RefundList>;
export type SalesPage = Static<typeof Sales.SalesPage>;
export type ChargeInput = Static<typeof Charges.ChargeBody>;
export type TestChargeInput = Static<typeof Sandbox.SandboxSaleBody>;
export type CardTokenInput = Static<typeof Cards.CardTokenBody>;
export type CardToken = Static<typeof Cards.CardToken>;
/** A method a link, a session or a charge may offer (checkout's CHECKOUT_METHODS). */
export type PaymentMethod = 'PIX' | 'BOLETO' | 'CREDIT_CARD';
export type Withdrawal = Static<typeof Withdrawals.WithdrawalLookup>;
export type RecipientPage = Static<typeof Recipients.PanelRecipientPage>;
export type Recipient = RecipientPage['data'][number];
export type RecipientReceivables = Static<typeof Recipients.RecipientReceivablesBody>;
/** A recipient as PATCH answers it: the API's Recipient (its document whole, no balance). */
export type RecipientChanged = Static<typeof Recipients.Recipient>;
export type WithdrawalCreated = Static<typeof Withdrawals.WithdrawalCreated>;
export type WithdrawalPage = Static<typeof Withdrawals.WithdrawalPage>;
export type FeePreview = Static<typeof Withdrawals.FeePreview>;
export type StatementLine = Static<typeof Ledger.StatementLine>;
export type StatementPage = Static<typeof Ledger.StatementPage>;
export type ReceivablesPage = Static<typeof Ledger.ReceivablesPage>;
export type AnticipationSimulation = Static<typeof Anticipations.Simulation>;
export type Anticipation = Static<typeof Anticipations.Anticipation>;
export type AnticipationAsk = { amountCents: number } | { upTo: string };
export type Credential = Static<typeof Auth.CredentialView>;
export type IssuedCredential = Static<typeof Auth.IssuedCredential>;
export type KeyScope = Credential['scope'];
export type IpList = Static<typeof Accounts.IpList>;
export type Webhook = Static<typeof Webhooks.Webhook>;
export type CreatedWebhook = Static<typeof Webhooks.CreatedWebhook>;
export type Delivery = Static<typeof Webhooks.Delivery>;
export type WebhookStats = Static<typeof Webhooks.Stats>;
export type TotpSetup = Static<typeof Auth.TotpSetup>;
export type AuditPage = Static<typeof Audit.AuditPage>;
export type AuditEntry = AuditPage['data'][number];
export type TeamMember = Static<typeof Team.TeamMember>;
export type Invitation = Static<typeof Team.Invitation>;
export type Dispute = Static<typeof Disputes.Dispute>;
export type SignupInput = Static<typeof Onboard.SignupBody>;
export type Onboarding = Static<typeof Onboard.OnboardingState>;
export type OnboardingDocument = Static<typeof Onboard.DocumentMeta>;
/**
 * A payment link as /api/panel/payment-links answers it (checkout/schemas.ts's PaymentLink, written out: that
 * module's schemas reach the sales module's, which the panel's build does not compile).
 */
export interface PaymentLink {
  id: string;
  url: string;
  slug: string;
  active: boolean;
  uses: number;
  /** Sales not paid yet that still may be: each holds a use of a link of maxUses. */
  usesInProgress: number;
  title: string;
  description: string | null;
  amountCents: number | null;
  minCents: number | null;
  maxCents: number | null;
  methods: string[];
  maxInstallments: number | null;
  expiresAt: string | null;
  maxUses: number | null;
  successUrl: string | null;
  metadata: Record<string, string>;
  /** The split rules as given (split links only). */
  split?: SplitRuleInput[];
  createdAt: string;
}
export interface PaymentLinkPage {
  data: PaymentLink[];
  nextCursor: string | null;
}
export interface LinkInput {
  title: string;
  description?: string;
  amountCents?: number;
  minCents?: number;
  maxCents?: number;
  methods: string[];
  maxInstallments?: number;
  expiresAt?: string;
  maxUses?: number;
  successUrl?: string;
  split?: SplitRuleInput[];
}
/** One rule of a charge's split, as the API takes it (sales/charges.schemas.ts's SplitRuleIn). */
export interface SplitRuleInput {
  recipientId: string;
  amountCents?: number;
  percent?: number;
  chargeFees?: boolean;
  liable?: boolean;
}
export type DisputePage = Static<typeof Disputes.DisputePage>;
export type Role = User['role'];
export type Permission = User['permissions'][number];

/** What the signed-in user's role may do (the server decides; this only hides what would be refused). */
export function can(permission: Permission): boolean {
  return user?.permissions.includes(permission) ?? false;
}

let csrf = '';
let user: User | null = null;
let onExpired: () => void = () => undefined;

export function whenSessionExpires(handler: () => void): void {
  onExpired = handler;
}

const CSRF_REFUSED = 'Missing or invalid X-CSRF-Token header';
/** Routes that answer without a session of this tab: their refusals say nothing of the session. */
const SESSIONLESS = [
  '/api/signup',
  '/api/auth/login',
  '/api/auth/me',
  '/api/auth/accept-invitation',
  '/api/auth/password-reset',
];

/**
 * Tabs of one browser share one session cookie: a login or logout in one tab is told to the others, and a tab
 * whose user is no longer the session's starts over (reads need no CSRF token, so without this a tab would
 * show one store's name over another's data).
 */
const tabs = typeof BroadcastChannel === 'function' ? new BroadcastChannel('panel-session') : null;
if (tabs) {
  tabs.onmessage = (e: MessageEvent<{ user: number | null }>) => {
    if (e.data.user !== (user?.id ?? null)) location.reload();
  };
}
// a tab the browser froze or put away misses those messages: coming back into view, it asks
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && user) void checkSession();
});

/**
 * The browser's session cookie is shared by every tab: a login in another tab replaces this tab's session.
 * Asked after a refusal or on coming back into view: the session gone → back to login; another user's
 * session → the page starts over as that user (this tab must not show one store's name over another's data);
 * the same user's session → its CSRF token is taken and a refused request may be sent again. No answer (the
 * network, a 5xx) changes nothing.
 */
async function checkSession(): Promise<'gone' | 'renewed' | 'unknown'> {
  const res = await fetch('/api/auth/me', { credentials: 'same-origin' }).catch(() => null);
  if (res?.status === 401) {
    onExpired();
    return 'gone';
  }
  if (!res?.ok) return 'unknown';
  const now = (await res.json()) as Session;
  if (now.user.id !== user?.id) {
    location.reload();
    return 'gone';
  }
  csrf = now.csrfToken;
  return 'renewed';
}

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  retried = false,
): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: {
      // a FormData body sets its own multipart content type, boundary included
      ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' && csrf ? { 'x-csrf-token': csrf } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) {
    const { message, code } = errorOf(data, res.status);
    const ownSession = !SESSIONLESS.some((p) => path.startsWith(p));
    // a 401 may be a wrong confirmation password: only a session that is really gone sends the user to login
    if (res.status === 401 && ownSession) await checkSession();
    if (res.status === 403 && message === CSRF_REFUSED && ownSession && !retried) {
      if ((await checkSession()) === 'renewed') return request(method, path, body, headers, true);
    }
    const wait = Number(res.headers.get('retry-after'));
    throw new ApiError(res.status, message, code, Number.isInteger(wait) && wait > 0 ? wait : null);
  }
  return data as T;
}

const query = (params: Record<string, string | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
};

export const api = {
  /** The logged-in user, as the last login or `me` answered. */
  user: () => user,
  async login(email: string, password: string, totpCode?: string): Promise<User> {
    const r = await request<Session>('POST', '/api/auth/login', {
      email,
      password,
      ...(totpCode ? { totpCode } : {}),
    });
    csrf = r.csrfToken;
    user = r.user;
    tabs?.postMessage({ user: r.user.id });
    return r.user;
  },
  /** Whether this gateway takes sign-ups (SIGNUP=on). */
  signupOpen: () =>
    request<{ open: boolean }>('GET', '/api/signup').then(
      (r) => r.open,
      () => false,
    ),
  /** A new account, waiting for review, its owner signed in. */
  async signUp(body: SignupInput): Promise<User> {
    const r = await request<Session>('POST', '/api/signup', body);
    csrf = r.csrfToken;
    user = r.user;
    tabs?.postMessage({ user: r.user.id });
    return r.user;
  },
  onboarding: () => request<Onboarding>('GET', '/api/onboarding'),
  uploadDocument: (form: FormData) => request<OnboardingDocument>('POST', '/api/onboarding/documents', form),
  /** An invitation's link: the password chosen, the invited user is signed in. */
  async acceptInvitation(token: string, password: string): Promise<User> {
    const r = await request<Session>('POST', '/api/auth/accept-invitation', { token, password });
    csrf = r.csrfToken;
    user = r.user;
    tabs?.postMessage({ user: r.user.id });
    return r.user;
  },
  requestPasswordReset: (email: string) => request<void>('POST', '/api/auth/password-reset', { email }),
  confirmPasswordReset: (token: string, password: string) =>
    request<void>('POST', '/api/auth/password-reset/confirm', { token, password }),
  team: () => request<{ data: TeamMember[] }>('GET', '/api/users'),
  invite: (body: { email: string; name: string; role: Role }) =>
    request<Invitation>('POST', '/api/users/invitations', body),
  changeRole: (id: number, role: Role) => request<TeamMember>('PUT', `/api/users/${id}`, { role }),
  removeUser: (id: number) => request<void>('DELETE', `/api/users/${id}`),
  approvalRule: () => request<{ thresholdCents: number | null }>('GET', '/api/settings/withdrawal-approval'),
  setApprovalRule: (thresholdCents: number | null) =>
    request<{ thresholdCents: number | null }>('PUT', '/api/settings/withdrawal-approval', {
      thresholdCents,
    }),
  decide: (id: number, step: 'approve' | 'decline', confirmation: { password?: string; totpCode?: string }) =>
    request<Withdrawal>('POST', `/api/withdrawals/${id}/${step}`, confirmation),
  async me(): Promise<User> {
    const r = await request<Session>('GET', '/api/auth/me');
    csrf = r.csrfToken;
    user = r.user;
    return r.user;
  },
  /** Ends the session; a session already gone counts as ended, any other failure is the caller's to show. */
  async logout(): Promise<void> {
    await request('POST', '/api/auth/logout').catch((err: unknown) => {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
    });
    csrf = '';
    user = null;
    tabs?.postMessage({ user: null });
  },
  totpSetup: () => request<TotpSetup>('POST', '/api/auth/totp/setup'),
  totpEnable: (code: string) => request<void>('POST', '/api/auth/totp/enable', { code }),
  totpDisable: (code: string) => request<void>('POST', '/api/auth/totp/disable', { code }),
  audit: (cursor?: string) => request<AuditPage>('GET', `/api/audit-log${query({ limit: '50', cursor })}`),
  balance: () => request<Balance>('GET', '/api/balance'),
  daily: () => request<Static<typeof Ledger.DailyTotals>>('GET', '/api/overview/daily?days=30'),
  sales: (f: Record<string, string | undefined>) => request<SalesPage>('GET', `/api/sales${query(f)}`),
  cancelSale: (id: string) => request<Sale>('POST', `/api/transactions/${encodeURIComponent(id)}/cancel`),
  paymentLinks: () => request<PaymentLinkPage>('GET', '/api/panel/payment-links?limit=100'),
  createPaymentLink: (body: LinkInput) => request<PaymentLink>('POST', '/api/panel/payment-links', body),
  setPaymentLinkActive: (id: string, active: boolean) =>
    request<PaymentLink>('PATCH', `/api/panel/payment-links/${id}`, { active }),
  sale: (id: string) => request<Sale>('GET', `/api/sales/${encodeURIComponent(id)}`),
  createCharge: (input: ChargeInput) => request<Sale>('POST', '/api/sales', input),
  /** What this gateway can take now: the forms offer only these. */
  paymentMethods: () => request<{ methods: PaymentMethod[] }>('GET', '/api/panel/payment-methods'),
  /** The payer's card tokenized at the acquirer for a card charge; the number goes nowhere else. */
  cardToken: (card: CardTokenInput) => request<CardToken>('POST', '/api/panel/cards/tokens', card),
  refund: (id: string, amountCents: number, key: string) =>
    request<RefundedSale>(
      'POST',
      `/api/sales/${encodeURIComponent(id)}/refund`,
      { amountCents },
      { 'idempotency-key': key },
    ),
  /** The panel's door of the API's refunds list (GET /api/transactions/{id}/refunds). */
  refunds: (id: string) => request<Refunds>('GET', `/api/sales/${encodeURIComponent(id)}/refunds`),
  simulatePayment: (id: string) =>
    request<Sale>('POST', `/api/sales/${encodeURIComponent(id)}/simulate-payment`),
  sandbox: () => request<{ enabled: boolean }>('GET', '/api/panel/sandbox'),
  /** Sandbox: a test charge by the sandbox's own sale route (open while the account is in review). */
  createTestCharge: (input: TestChargeInput) => request<Sale>('POST', '/api/sandbox/sales', input),
  /** Sandbox: its payout provider pays or refuses a PROCESSING withdrawal (the result route's own code). */
  simulateWithdrawalResult: (id: string, result: 'COMPLETED' | 'REJECTED') =>
    request<Withdrawal>('POST', `/api/withdrawals/${encodeURIComponent(id)}/simulate-result`, { result }),
  recipients: (cursor?: string) =>
    request<RecipientPage>('GET', `/api/panel/recipients${query({ limit: '50', cursor })}`),
  /** Every recipient of the account, page by page (100 a page, up to 5,000): what a split's form picks among. */
  allRecipients: async () => {
    const all: RecipientPage['data'] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const page = await request<RecipientPage>(
        'GET',
        `/api/panel/recipients${query({ limit: '100', cursor })}`,
      );
      all.push(...page.data);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    return all;
  },
  // a recipient's own routes: the integrator's by key, the panel's by its session (one handler, two doors)
  recipient: (id: string) => request<RecipientChanged>('GET', `/api/recipients/${encodeURIComponent(id)}`),
  recipientReceivables: (id: string) =>
    request<RecipientReceivables>('GET', `/api/recipients/${encodeURIComponent(id)}/receivables`),
  recipientWithdrawals: (id: string, cursor?: string) =>
    request<WithdrawalPage>(
      'GET',
      `/api/recipients/${encodeURIComponent(id)}/withdrawals${query({ limit: '20', cursor })}`,
    ),
  recipientStatement: (id: string, cursor?: string) =>
    request<StatementPage>(
      'GET',
      `/api/recipients/${encodeURIComponent(id)}/statement${query({ limit: '20', cursor })}`,
    ),
  updateRecipient: (id: string, body: { name?: string; active?: boolean }) =>
    request<RecipientChanged>('PATCH', `/api/recipients/${encodeURIComponent(id)}`, body),
  withdrawals: (f: Record<string, string | undefined>) =>
    request<WithdrawalPage>('GET', `/api/withdrawals${query(f)}`),
  withdrawal: (id: string) => request<Withdrawal>('GET', `/api/withdrawals/${encodeURIComponent(id)}`),
  withdraw: (
    body: { amount: string; pixKey: string; pixKeyType: string; password?: string; totpCode?: string },
    key: string,
  ) => request<WithdrawalCreated>('POST', '/api/withdrawals', body, { 'idempotency-key': key }),
  feePreview: (amount: string) =>
    request<FeePreview>('GET', `/api/withdrawals/fee-preview${query({ amount })}`),
  receivables: (f: { from?: string; to?: string }) =>
    request<ReceivablesPage>('GET', `/api/panel/receivables${query(f)}`),
  /** What anticipating would pay now (nothing held). */
  simulateAnticipation: (ask: AnticipationAsk) =>
    request<AnticipationSimulation>('POST', '/api/anticipations/simulate', ask),
  /** An anticipation (the key makes a repeat of the same click one anticipation). */
  anticipate: (ask: AnticipationAsk, key: string) =>
    request<Anticipation>('POST', '/api/anticipations', ask, { 'idempotency-key': key }),
  statement: (f: Record<string, string | undefined>) =>
    request<StatementPage>('GET', `/api/statement${query(f)}`),
  exportUrl: (what: 'sales' | 'withdrawals' | 'statement', f: Record<string, string | undefined>) =>
    `/api/${what}/export.csv${query(f)}`,
  credentials: () => request<Credential[]>('GET', '/api/credentials'),
  createCredential: (body: { name?: string; scope?: KeyScope; expiresAt?: string }) =>
    request<IssuedCredential>('POST', '/api/credentials', body),
  rollCredential: (id: number, graceHours: number) =>
    request<IssuedCredential>('POST', `/api/credentials/${id}/roll`, { graceHours }),
  revokeCredential: (id: number) => request<void>('DELETE', `/api/credentials/${id}`),
  narrowCredential: (id: number, scope: KeyScope) =>
    request<Credential>('PATCH', `/api/credentials/${id}`, { scope }),
  allowedIps: () => request<IpList>('GET', '/api/settings/allowed-ips'),
  saveAllowedIps: (ips: string[]) => request<IpList>('PUT', '/api/settings/allowed-ips', { ips }),
  webhooks: () => request<Webhook[]>('GET', '/api/webhook'),
  createWebhook: (webhookUrl: string, events: string[]) =>
    request<CreatedWebhook>('POST', '/api/webhook', { webhookUrl, events }),
  updateWebhook: (id: number, webhookUrl: string, events: string[]) =>
    request<Webhook>('PUT', `/api/webhook/${id}`, { webhookUrl, events }),
  setWebhookStatus: (id: number, status: 'active' | 'disabled') =>
    request<Webhook>('PUT', `/api/webhook/${id}`, { status }),
  deleteWebhook: (id: number) => request<void>('DELETE', `/api/webhook/${id}`),
  rotateSecret: (id: number, overlapHours: number) =>
    request<{ secret: string }>('POST', `/api/webhook/${id}/rotate-secret`, { overlapHours }),
  testWebhook: (id: number) => request<{ eventId: string }>('POST', `/api/webhook/${id}/test`),
  recover: (id: number, since: string) =>
    request<{ queued: number }>('POST', `/api/webhook/${id}/recover`, { since }),
  webhookStats: (id: number) => request<WebhookStats>('GET', `/api/webhook/${id}/stats?hours=24`),
  deliveries: (id: number) => request<Delivery[]>('GET', `/api/webhook/${id}/deliveries?limit=50`),
  disputes: (f: Record<string, string | undefined>) =>
    request<DisputePage>('GET', `/api/panel/disputes${query(f)}`),
  dispute: (id: string) => request<Dispute>('GET', `/api/panel/disputes/${encodeURIComponent(id)}`),
  answerDispute: (id: string, form: FormData) =>
    request<Dispute>('POST', `/api/panel/disputes/${encodeURIComponent(id)}/evidence`, form),
  acceptDispute: (id: string) =>
    request<Dispute>('POST', `/api/panel/disputes/${encodeURIComponent(id)}/accept`),
  resend: (deliveryId: number) => request<Delivery>('POST', `/api/webhook/deliveries/${deliveryId}/resend`),
  customers: (f: Record<string, string | undefined>) =>
    request<CustomersPage>('GET', `/api/panel/customers${query(f)}`),
  subscriptions: (f: Record<string, string | undefined>) =>
    request<SubscriptionsPage>('GET', `/api/subscriptions${query(f)}`),
  subscription: (id: string) => request<Subscription>('GET', `/api/subscriptions/${encodeURIComponent(id)}`),
  customer: (id: string) => request<Customer>('GET', `/api/customers/${encodeURIComponent(id)}`),
  plans: () => request<PlansPage>('GET', '/api/plans?limit=100'),
  // plans, customers and subscriptions are made by the API's own routes, through the panel's door
  createPlan: (body: PlanInput) => request<Plan>('POST', '/api/plans', body),
  changePlan: (id: string, body: { active: boolean }) =>
    request<Plan>('PATCH', `/api/plans/${encodeURIComponent(id)}`, body),
  createCustomer: (body: CustomerInput) => request<Customer>('POST', '/api/customers', body),
  createSubscription: (body: SubscriptionInput) => request<Subscription>('POST', '/api/subscriptions', body),
  cancelSubscription: (id: string, atPeriodEnd: boolean) =>
    request<Subscription>('POST', `/api/subscriptions/${encodeURIComponent(id)}/cancel`, {
      atPeriodEnd,
    }),
};
