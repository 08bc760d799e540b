/**
 * The payment gateway's TypeScript SDK for merchants' servers: no runtime dependencies (Node ≥ 20's fetch and
 * crypto), types generated from the gateway's /openapi.json.
 */
import { type ClientOptions, HttpClient, type RequestOptions } from './http.js';
import type { paths } from './openapi.js';

export { GatewayConnectionError, GatewayError, WebhookVerificationError } from './errors.js';
export type { ClientOptions, RequestOptions } from './http.js';
export type { paths } from './openapi.js';
export {
  type EventIdStore,
  type HandleWebhookOptions,
  handleWebhook,
  type WebhookAnswer,
  type WebhookHandlerOptions,
  webhookHandler,
} from './webhook-handler.js';
export {
  EventIdDeduplicator,
  isSaleEvent,
  type SaleWebhookEvent,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookPayload,
} from './webhooks.js';

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: infer R;
}
  ? S extends keyof R
    ? JsonOf<R[S]>
    : never
  : never;
type BodyOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer B;
}
  ? JsonOf<NonNullable<B>>
  : never;

export type Balance = Answer<'/api/public/balance', 'get', 200>;
export type CashoutCreate = BodyOf<'/api/public/cashout', 'post'>;
export type CashoutCreated = Answer<'/api/public/cashout', 'post', 201>;
export type Withdrawal = Answer<'/api/public/cashout/{id}', 'get', 200>;
export type ChargeCreate = BodyOf<'/api/transactions', 'post'>;
export type Sale = Answer<'/api/transactions/{id}', 'get', 200>;
export type Charge = Answer<'/api/transactions', 'post', 201>;
export type RefundAccepted = Answer<'/api/transactions/{id}/refund', 'post', 202>;
export type Captured = Answer<'/api/transactions/{id}/capture', 'post', 200>;
export type ReceivablesPage = Answer<'/api/receivables', 'get', 200>;
export type SalesPage = Answer<'/api/transactions', 'get', 200>;
export type Refund = Answer<'/api/transactions/{id}/refunds', 'get', 200>[number];
export type Canceled = Answer<'/api/transactions/{id}/cancel', 'post', 200>;
export type WebhookCreate = BodyOf<'/api/webhook', 'post'>;
export type CreatedWebhook = Answer<'/api/webhook', 'post', 201>;
export type Webhook = Answer<'/api/webhook', 'get', 200>[number];
export type WebhookUpdate = {
  webhookUrl?: string;
  events?: string[];
  /** `active` turns a webhook that failed too often back on; `disabled` stops its deliveries. */
  status?: 'active' | 'disabled';
};
export type WebhookUpdated = Answer<'/api/webhook/{id}', 'put', 200>;
export type WebhookDelivery = Answer<'/api/webhook/{id}/deliveries', 'get', 200>[number];
export type WebhookTestSent = Answer<'/api/webhook/{id}/test', 'post', 202>;
export type WebhookSecret = Answer<'/api/webhook/{id}/rotate-secret', 'post', 200>;
export type WebhookRecovered = Answer<'/api/webhook/{id}/recover', 'post', 200>;
export type WebhookStats = Answer<'/api/webhook/{id}/stats', 'get', 200>;
export type Fees = Answer<'/api/fees', 'get', 200>;
export type AnticipationRequest = { amountCents?: number; upTo?: string };
export type AnticipationSimulation = Answer<'/api/anticipations/simulate', 'post', 200>;
export type Anticipation = Answer<'/api/anticipations', 'post', 201>;
export type AnticipationPage = Answer<'/api/anticipations', 'get', 200>;
export type CardTokenCreate = BodyOf<'/api/cards/tokens', 'post'>;
export type CardToken = Answer<'/api/cards/tokens', 'post', 201>;
export type SandboxSaleCreate = BodyOf<'/api/sandbox/sales', 'post'>;
export type SandboxRecurrenceCreate = BodyOf<'/api/sandbox/recurrences', 'post'>;
export type SandboxRecurrence = Answer<'/api/sandbox/recurrences', 'post', 201>;
export type SandboxCartCreate = BodyOf<'/api/sandbox/carts', 'post'>;
export type SandboxCart = Answer<'/api/sandbox/carts', 'post', 201>;
export type SandboxDisputeOpen = BodyOf<'/api/sandbox/sales/{id}/dispute', 'post'>;
/** A cashout's amount: `amount` in reais as the contract takes it ("150.00"), or `amountCents` (15000). */
export type CashoutCreateCents = Omit<CashoutCreate, 'amount'> & { amountCents: number };
export type RecipientCashoutCreateCents = Omit<RecipientCashoutCreate, 'amount'> & { amountCents: number };

/** An evidence file for disputes.respond: its name and its bytes (PDF, PNG or JPEG, 5 MB at most). */
export interface EvidenceFile {
  name: string;
  content: Blob | Uint8Array;
}

export interface SaleListParams {
  /** PENDENTE, PAGO, … */
  status?: string;
  /** PIX, BOLETO, CREDIT_CARD, … */
  paymentMethod?: string;
  /** Created at or after (ISO 8601; a bare date is 00:00 in São Paulo). */
  from?: string;
  /** Created before (ISO 8601), or on or before a bare date. */
  to?: string;
  /** 1..100, default 20 */
  limit?: number;
  cursor?: string;
}
export type PaymentLinkCreate = BodyOf<'/api/payment-links', 'post'>;
export type PaymentLink = Answer<'/api/payment-links', 'post', 201>;
export type PaymentLinkPage = Answer<'/api/payment-links', 'get', 200>;
export type PaymentLinkUpdate = BodyOf<'/api/payment-links/{id}', 'patch'>;
export type CheckoutSessionCreate = BodyOf<'/api/checkout/sessions', 'post'>;
export type CheckoutSession = Answer<'/api/checkout/sessions', 'post', 201>;
export type EventPage = Answer<'/api/events', 'get', 200>;
export type Dispute = Answer<'/api/disputes/{id}', 'get', 200>;
export type DisputePage = Answer<'/api/disputes', 'get', 200>;
export type RecipientCreate = {
  name: string;
  /** CPF or CNPJ */
  document: string;
  email: string;
  pixKey: string;
  pixKeyType: 'CPF' | 'CNPJ' | 'EMAIL' | 'PHONE' | 'RANDOM';
  transferInterval?: 'manual' | 'daily' | 'weekly';
};
export type Recipient = Answer<'/api/recipients', 'post', 201>;
export type RecipientPage = Answer<'/api/recipients', 'get', 200>;
export type RecipientBalance = Answer<'/api/recipients/{id}/balance', 'get', 200>;
export type RecipientCashoutCreate = BodyOf<'/api/recipients/{id}/cashout', 'post'>;
export type RecipientUpdate = {
  name?: string;
  email?: string;
  pixKey?: string;
  pixKeyType?: 'CPF' | 'CNPJ' | 'EMAIL' | 'PHONE' | 'RANDOM';
  transferInterval?: 'manual' | 'daily' | 'weekly';
  active?: boolean;
};
export type RecipientReceivables = Answer<'/api/recipients/{id}/receivables', 'get', 200>;
export type RecipientWithdrawalPage = Answer<'/api/recipients/{id}/withdrawals', 'get', 200>;
export type RecipientStatementPage = Answer<'/api/recipients/{id}/statement', 'get', 200>;
/** One rule of a charge's `split` (POST /api/transactions, payment links, checkout sessions). */
export type SplitRule = NonNullable<ChargeCreate['split']>[number];
/** A split sale's parties, each with its netCents (the platform last, recipientId null). */
export type SaleSplit = NonNullable<Sale['split']>;

export type CustomerCreate = BodyOf<'/api/customers', 'post'>;
export type Customer = Answer<'/api/customers/{id}', 'get', 200>;
export type CustomerPage = Answer<'/api/customers', 'get', 200>;
export type SavedCard = Answer<'/api/customers/{id}/cards', 'post', 201>;
export type PlanCreate = BodyOf<'/api/plans', 'post'>;
export type Plan = Answer<'/api/plans/{id}', 'get', 200>;
export type PlanPage = Answer<'/api/plans', 'get', 200>;
export type SubscriptionCreate = BodyOf<'/api/subscriptions', 'post'>;
export type Subscription = Answer<'/api/subscriptions/{id}', 'get', 200>;
export type SubscriptionPage = Answer<'/api/subscriptions', 'get', 200>;

export interface DisputeListParams {
  /** needs_response, under_review, won, lost or accepted */
  status?: Dispute['status'];
  limit?: number;
  cursor?: string;
}
export type Event = Answer<'/api/events/{id}', 'get', 200>;

export interface EventListParams {
  /** One event name or several. */
  type?: string | readonly string[];
  since?: string | Date;
  until?: string | Date;
  limit?: number;
  cursor?: string;
}

const segment = (id: string | number) => encodeURIComponent(String(id));

function query(params: EventListParams): string {
  const q = new URLSearchParams();
  if (params.type !== undefined)
    q.set('type', typeof params.type === 'string' ? params.type : params.type.join(','));
  for (const key of ['since', 'until'] as const) {
    const v = params[key];
    if (v !== undefined) q.set(key, v instanceof Date ? v.toISOString() : v);
  }
  if (params.limit !== undefined) q.set('limit', String(params.limit));
  if (params.cursor !== undefined) q.set('cursor', params.cursor);
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}

function saleQuery(params: SaleListParams): string {
  const q = new URLSearchParams();
  for (const key of ['status', 'paymentMethod', 'from', 'to', 'cursor'] as const) {
    const v = params[key];
    if (v !== undefined) q.set(key, v);
  }
  if (params.limit !== undefined) q.set('limit', String(params.limit));
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}

function pageQuery(params: object): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) q.set(key, String(value));
  }
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * A cashout body as the contract takes it: `amountCents` (an integer) becomes `amount`, its reais string
 * ("150.00"), so that no caller sends 15000 meaning R$ 150,00; a body with `amount` goes as it is.
 */
function cashoutBody<B extends { amount: number | string }>(
  body: B | (Omit<B, 'amount'> & { amountCents: number }),
): B {
  if (!('amountCents' in body)) return body;
  const { amountCents, ...rest } = body;
  if ('amount' in rest) throw new TypeError('give amount (reais) or amountCents, not both');
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) {
    throw new TypeError(`amountCents must be a whole number of cents, not ${amountCents}`);
  }
  const reais = `${Math.floor(amountCents / 100)}.${String(amountCents % 100).padStart(2, '0')}`;
  return { ...rest, amount: reais } as unknown as B;
}

/**
 * Every SDK method and the operation of the API document it calls (`METHOD /path` as /openapi.json spells
 * it). A test checks this table against the document both ways and each method against the request it
 * makes, so that no route of the document lacks a method and no entry here lies.
 */
export const ROUTES = {
  'balance.retrieve': 'GET /api/public/balance',
  'fees.retrieve': 'GET /api/fees',
  'cashouts.create': 'POST /api/public/cashout',
  'cashouts.retrieve': 'GET /api/public/cashout/{id}',
  'transactions.create': 'POST /api/transactions',
  'transactions.retrieve': 'GET /api/transactions/{id}',
  'transactions.list': 'GET /api/transactions',
  'transactions.iterate': 'GET /api/transactions',
  'transactions.cancel': 'POST /api/transactions/{id}/cancel',
  'transactions.refunds': 'GET /api/transactions/{id}/refunds',
  'transactions.refund': 'POST /api/transactions/{id}/refund',
  'transactions.capture': 'POST /api/transactions/{id}/capture',
  'transactions.boletoPdf': 'GET /api/transactions/{id}/boleto.pdf',
  'cards.tokenize': 'POST /api/cards/tokens',
  'paymentLinks.create': 'POST /api/payment-links',
  'paymentLinks.list': 'GET /api/payment-links',
  'paymentLinks.retrieve': 'GET /api/payment-links/{id}',
  'paymentLinks.update': 'PATCH /api/payment-links/{id}',
  'checkout.sessions.create': 'POST /api/checkout/sessions',
  'checkout.sessions.retrieve': 'GET /api/checkout/sessions/{id}',
  'receivables.list': 'GET /api/receivables',
  'anticipations.simulate': 'POST /api/anticipations/simulate',
  'anticipations.create': 'POST /api/anticipations',
  'anticipations.list': 'GET /api/anticipations',
  'disputes.list': 'GET /api/disputes',
  'disputes.retrieve': 'GET /api/disputes/{id}',
  'disputes.accept': 'POST /api/disputes/{id}/accept',
  'disputes.respond': 'POST /api/disputes/{id}/evidence',
  'recipients.create': 'POST /api/recipients',
  'recipients.list': 'GET /api/recipients',
  'recipients.retrieve': 'GET /api/recipients/{id}',
  'recipients.update': 'PATCH /api/recipients/{id}',
  'recipients.balance': 'GET /api/recipients/{id}/balance',
  'recipients.receivables': 'GET /api/recipients/{id}/receivables',
  'recipients.withdrawals': 'GET /api/recipients/{id}/withdrawals',
  'recipients.statement': 'GET /api/recipients/{id}/statement',
  'recipients.cashout': 'POST /api/recipients/{id}/cashout',
  'refunds.list': 'GET /api/transactions/{id}/refunds',
  'webhooks.create': 'POST /api/webhook',
  'webhooks.list': 'GET /api/webhook',
  'webhooks.update': 'PUT /api/webhook/{id}',
  'webhooks.delete': 'DELETE /api/webhook/{id}',
  'webhooks.test': 'POST /api/webhook/{id}/test',
  'webhooks.deliveries': 'GET /api/webhook/{id}/deliveries',
  'webhooks.resend': 'POST /api/webhook/deliveries/{id}/resend',
  'webhooks.rotateSecret': 'POST /api/webhook/{id}/rotate-secret',
  'webhooks.recover': 'POST /api/webhook/{id}/recover',
  'webhooks.stats': 'GET /api/webhook/{id}/stats',
  'customers.create': 'POST /api/customers',
  'customers.list': 'GET /api/customers',
  'customers.retrieve': 'GET /api/customers/{id}',
  'customers.saveCard': 'POST /api/customers/{id}/cards',
  'customers.deleteCard': 'DELETE /api/customers/{id}/cards/{cardId}',
  'plans.create': 'POST /api/plans',
  'plans.list': 'GET /api/plans',
  'plans.retrieve': 'GET /api/plans/{id}',
  'plans.update': 'PATCH /api/plans/{id}',
  'subscriptions.create': 'POST /api/subscriptions',
  'subscriptions.list': 'GET /api/subscriptions',
  'subscriptions.retrieve': 'GET /api/subscriptions/{id}',
  'subscriptions.update': 'PATCH /api/subscriptions/{id}',
  'subscriptions.cancel': 'POST /api/subscriptions/{id}/cancel',
  'events.list': 'GET /api/events',
  'events.iterate': 'GET /api/events',
  'events.retrieve': 'GET /api/events/{id}',
  'events.stream': 'GET /api/events/stream',
  'sandbox.createSale': 'POST /api/sandbox/sales',
  'sandbox.pay': 'POST /api/sandbox/sales/{id}/status',
  'sandbox.setStatus': 'POST /api/sandbox/sales/{id}/status',
  'sandbox.openDispute': 'POST /api/sandbox/sales/{id}/dispute',
  'sandbox.decideDispute': 'POST /api/sandbox/disputes/{id}/outcome',
  'sandbox.advanceSubscription': 'POST /api/sandbox/subscriptions/{id}/advance',
  'sandbox.completeWithdrawal': 'POST /api/sandbox/cashouts/{id}/result',
  'sandbox.rejectWithdrawal': 'POST /api/sandbox/cashouts/{id}/result',
  'sandbox.cancelWithdrawal': 'POST /api/sandbox/cashouts/{id}/cancel',
  'sandbox.createRecurrence': 'POST /api/sandbox/recurrences',
  'sandbox.runRecurrenceCycle': 'POST /api/sandbox/recurrences/{idRec}/cycles',
  'sandbox.createCart': 'POST /api/sandbox/carts',
  'sandbox.abandonCart': 'POST /api/sandbox/carts/{id}/abandon',
  'sandbox.decideAnticipation': 'POST /api/sandbox/anticipations',
} as const satisfies Record<string, `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /api/${string}`>;

/** A client of one merchant account (one API key pair). */
export class Gateway {
  readonly balance;
  readonly cashouts;
  readonly transactions;
  readonly events;
  readonly paymentLinks;
  readonly checkout;
  readonly disputes;
  readonly recipients;
  readonly receivables;
  readonly webhooks;
  readonly sandbox;
  readonly refunds;
  readonly customers;
  readonly plans;
  readonly subscriptions;
  readonly fees;
  readonly cards;
  readonly anticipations;

  /**
   * A client from the environment: GATEWAY_URL, GATEWAY_PUBLIC_KEY and GATEWAY_PRIVATE_KEY (the names the
   * quickstart and `gateway keys create --env` use); throws naming the first one unset. `options` adds to them.
   */
  static fromEnv(
    options: Partial<ClientOptions> = {},
    env: Record<string, string | undefined> = process.env,
  ): Gateway {
    const read = (name: string) => {
      const value = env[name];
      if (!value) throw new TypeError(`${name} is not set`);
      return value;
    };
    return new Gateway({
      baseUrl: read('GATEWAY_URL'),
      publicKey: read('GATEWAY_PUBLIC_KEY'),
      privateKey: read('GATEWAY_PRIVATE_KEY'),
      ...options,
    });
  }

  constructor(options: ClientOptions) {
    const http = new HttpClient(options);
    this.balance = {
      /** GET /api/public/balance */
      retrieve: () => http.request<Balance>('GET', '/api/public/balance'),
    };
    this.fees = {
      /** GET /api/fees: the account's rates (its fee plan's, or its own). */
      retrieve: () => http.request<Fees>('GET', '/api/fees'),
    };
    this.cards = {
      /**
       * POST /api/cards/tokens: a one-time token of a card (for a charge's card.token or customers.saveCard);
       * usually made in the payer's browser with the public key, here from a server that may hold card data.
       */
      tokenize: (body: CardTokenCreate) => http.request<CardToken>('POST', '/api/cards/tokens', body),
    };
    this.anticipations = {
      /** POST /api/anticipations/simulate: what anticipating `amountCents` (or every receivable up to `upTo`) would pay. */
      simulate: (body: AnticipationRequest) =>
        http.request<AnticipationSimulation>('POST', '/api/anticipations/simulate', body),
      /**
       * POST /api/anticipations: asks for the anticipation (an operator approves it); an Idempotency-Key is
       * generated when none is given and kept across retries: a retry never asks for a second one.
       */
      create: (body: AnticipationRequest, options: RequestOptions = {}) =>
        http.request<Anticipation>('POST', '/api/anticipations', body, {
          idempotencyKey: options.idempotencyKey ?? HttpClient.newKey(),
        }),
      /** GET /api/anticipations: a page, newest first. */
      list: (params: { limit?: number; cursor?: string } = {}) =>
        http.request<AnticipationPage>('GET', `/api/anticipations${pageQuery(params)}`),
    };
    this.cashouts = {
      /**
       * POST /api/public/cashout, `amount` in reais ("150.00") or `amountCents` (15000, sent as "150.00"); an
       * Idempotency-Key is generated when none is given and kept across retries.
       */
      create: async (body: CashoutCreate | CashoutCreateCents, options: RequestOptions = {}) =>
        http.request<CashoutCreated>('POST', '/api/public/cashout', cashoutBody(body), {
          idempotencyKey: options.idempotencyKey ?? HttpClient.newKey(),
        }),
      /** GET /api/public/cashout/{id} (uuid or numeric id) */
      retrieve: (id: string | number) =>
        http.request<Withdrawal>('GET', `/api/public/cashout/${segment(id)}`),
    };
    this.transactions = {
      /** POST /api/transactions (a PIX charge); an Idempotency-Key is generated when none is given. */
      create: (body: ChargeCreate, options: RequestOptions = {}) =>
        http.request<Charge>('POST', '/api/transactions', body, {
          idempotencyKey: options.idempotencyKey ?? HttpClient.newKey(),
        }),
      /** GET /api/transactions/{id} */
      retrieve: (id: string | number) => http.request<Sale>('GET', `/api/transactions/${segment(id)}`),
      /** GET /api/transactions: one page of the account's sales, newest first. */
      list: (params: SaleListParams = {}) =>
        http.request<SalesPage>('GET', `/api/transactions${saleQuery(params)}`),
      /** Every sale of every page, newest first (the pages fetched as the loop goes). */
      iterate: async function* (params: Omit<SaleListParams, 'cursor'> = {}): AsyncGenerator<Sale> {
        let cursor: string | undefined;
        do {
          const page: SalesPage = await http.request<SalesPage>(
            'GET',
            `/api/transactions${saleQuery({ ...params, ...(cursor ? { cursor } : {}) })}`,
          );
          for (const sale of page.data) yield sale as Sale;
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
      },
      /**
       * POST /api/transactions/{id}/cancel: a PENDENTE PIX or BOLETO sale, or a card sale only authorized
       * (EM_PROCESSAMENTO, voided at the acquirer), becomes CANCELADO (else 409 INVALID_STATUS).
       */
      cancel: (id: string | number) =>
        http.request<Canceled>('POST', `/api/transactions/${segment(id)}/cancel`, {}),
      /** GET /api/transactions/{id}/refunds: the sale's refunds, oldest first. */
      refunds: (id: string | number) =>
        http.request<Refund[]>('GET', `/api/transactions/${segment(id)}/refunds`),
      /**
       * POST /api/transactions/{id}/refund: all that is left, or `amountCents` of it. An Idempotency-Key is
       * generated when none is given and kept across retries: a retry never makes a second refund.
       */
      refund: (id: string | number, options: { amountCents?: number; idempotencyKey?: string } = {}) =>
        http.request<RefundAccepted>(
          'POST',
          `/api/transactions/${segment(id)}/refund`,
          options.amountCents === undefined ? {} : { amountCents: options.amountCents },
          { idempotencyKey: options.idempotencyKey ?? HttpClient.newKey() },
        ),
      /**
       * POST /api/transactions/{id}/capture: an authorized card sale captured in full, or `amountCents` of it
       * (not retried: the route takes no Idempotency-Key; a repeat of a made capture answers 409).
       */
      capture: (id: string | number, options: { amountCents?: number } = {}) =>
        http.request<Captured>(
          'POST',
          `/api/transactions/${segment(id)}/capture`,
          options.amountCents === undefined ? {} : { amountCents: options.amountCents },
        ),
      /** GET /api/transactions/{id}/boleto.pdf: a BOLETO sale's slip, its PDF bytes. */
      boletoPdf: async (id: string | number) => {
        const res = await http.send('GET', `/api/transactions/${segment(id)}/boleto.pdf`, undefined, {
          accept: 'application/pdf',
        });
        return new Uint8Array(await res.arrayBuffer());
      },
    };
    this.paymentLinks = {
      /** POST /api/payment-links (not retried: the route takes no Idempotency-Key) */
      create: (body: PaymentLinkCreate) => http.request<PaymentLink>('POST', '/api/payment-links', body),
      /** GET /api/payment-links: a page, newest first. */
      list: (params: { limit?: number; cursor?: string } = {}) =>
        http.request<PaymentLinkPage>('GET', `/api/payment-links${pageQuery(params)}`),
      /** GET /api/payment-links/{id} */
      retrieve: (id: string) => http.request<PaymentLink>('GET', `/api/payment-links/${segment(id)}`),
      /** PATCH /api/payment-links/{id} ({active: false} turns the link off) */
      update: (id: string, body: PaymentLinkUpdate) =>
        http.request<PaymentLink>('PATCH', `/api/payment-links/${segment(id)}`, body),
    };
    this.checkout = {
      sessions: {
        /** POST /api/checkout/sessions (not retried: the route takes no Idempotency-Key) */
        create: (body: CheckoutSessionCreate) =>
          http.request<CheckoutSession>('POST', '/api/checkout/sessions', body),
        /** GET /api/checkout/sessions/{id} */
        retrieve: (id: string) =>
          http.request<CheckoutSession>('GET', `/api/checkout/sessions/${segment(id)}`),
      },
    };
    this.receivables = {
      /** GET /api/receivables: card installments by the date they reach available (today and 90 days on by default). */
      list: (params: { from?: string; to?: string } = {}) => {
        const q = new URLSearchParams();
        if (params.from) q.set('from', params.from);
        if (params.to) q.set('to', params.to);
        const text = q.toString();
        return http.request<ReceivablesPage>('GET', `/api/receivables${text === '' ? '' : `?${text}`}`);
      },
    };
    this.disputes = {
      /** GET /api/disputes: a page, newest first. */
      list: (params: DisputeListParams = {}) => {
        const q = new URLSearchParams(pageQuery(params).slice(1));
        if (params.status !== undefined) q.set('status', params.status);
        const text = q.toString();
        return http.request<DisputePage>('GET', `/api/disputes${text === '' ? '' : `?${text}`}`);
      },
      /** GET /api/disputes/{id} */
      retrieve: (id: string) => http.request<Dispute>('GET', `/api/disputes/${segment(id)}`),
      /** POST /api/disputes/{id}/accept: give up the disputed amount. */
      accept: (id: string) => http.request<Dispute>('POST', `/api/disputes/${segment(id)}/accept`),
      /**
       * POST /api/disputes/{id}/evidence (multipart/form-data): up to 10 files and a text of up to 5,000
       * characters, before respondBy; the dispute goes under_review.
       */
      respond: (id: string, evidence: { text?: string; files?: readonly EvidenceFile[] }) => {
        const form = new FormData();
        for (const file of evidence.files ?? []) {
          const blob = file.content instanceof Blob ? file.content : new Blob([file.content]);
          form.append('files', blob, file.name);
        }
        if (evidence.text !== undefined) form.append('text', evidence.text);
        return http.request<Dispute>('POST', `/api/disputes/${segment(id)}/evidence`, form);
      },
    };
    this.recipients = {
      /** POST /api/recipients: a recipient of split payments under this (platform) account. */
      create: (body: RecipientCreate) => http.request<Recipient>('POST', '/api/recipients', body),
      /** GET /api/recipients: a page, newest first. */
      list: (params: { limit?: number; cursor?: string } = {}) =>
        http.request<RecipientPage>('GET', `/api/recipients${pageQuery(params)}`),
      /** GET /api/recipients/{id} (another account's is not found) */
      retrieve: (id: string) => http.request<Recipient>('GET', `/api/recipients/${segment(id)}`),
      /**
       * PATCH /api/recipients/{id}: only the fields given change (never the document); `active: false` stops new
       * splits naming it, its balance, receivables and payouts go on.
       */
      update: (id: string, body: RecipientUpdate) =>
        http.request<Recipient>('PATCH', `/api/recipients/${segment(id)}`, body),
      /** GET /api/recipients/{id}/balance: available, blocked, receivable and total, in cents. */
      balance: (id: string) =>
        http.request<RecipientBalance>('GET', `/api/recipients/${segment(id)}/balance`),
      /** GET /api/recipients/{id}/receivables: card installments not yet settled, and their total. */
      receivables: (id: string, params: { from?: string; to?: string } = {}) =>
        http.request<RecipientReceivables>(
          'GET',
          `/api/recipients/${segment(id)}/receivables${pageQuery(params)}`,
        ),
      /** GET /api/recipients/{id}/withdrawals: its Withdrawal objects, newest first. */
      withdrawals: (id: string, params: { limit?: number; cursor?: string } = {}) =>
        http.request<RecipientWithdrawalPage>(
          'GET',
          `/api/recipients/${segment(id)}/withdrawals${pageQuery(params)}`,
        ),
      /** GET /api/recipients/{id}/statement: its ledger lines, newest first, with its balances after each. */
      statement: (id: string, params: { from?: string; to?: string; limit?: number; cursor?: string } = {}) =>
        http.request<RecipientStatementPage>(
          'GET',
          `/api/recipients/${segment(id)}/statement${pageQuery(params)}`,
        ),
      /**
       * POST /api/recipients/{id}/cashout: pays out the recipient's available balance (the PIX key defaults to
       * the recipient's own); an Idempotency-Key is generated when none is given and kept across retries.
       */
      cashout: async (
        id: string,
        body: RecipientCashoutCreate | RecipientCashoutCreateCents,
        options: RequestOptions = {},
      ) =>
        http.request<CashoutCreated>('POST', `/api/recipients/${segment(id)}/cashout`, cashoutBody(body), {
          idempotencyKey: options.idempotencyKey ?? HttpClient.newKey(),
        }),
    };
    this.refunds = {
      /** GET /api/transactions/{id}/refunds: a sale's refunds, oldest first (the same as transactions.refunds). */
      list: (saleId: string | number) =>
        http.request<Refund[]>('GET', `/api/transactions/${segment(saleId)}/refunds`),
    };
    this.webhooks = {
      /** POST /api/webhook (a full-scope key): the answer carries the whsec_ secret, shown only then. */
      create: (body: WebhookCreate) => http.request<CreatedWebhook>('POST', '/api/webhook', body),
      /** GET /api/webhook */
      list: () => http.request<Webhook[]>('GET', '/api/webhook'),
      /** PUT /api/webhook/{id}: another URL, other events, or its status (`active` turns a disabled one back on). */
      update: (id: number, body: WebhookUpdate) =>
        http.request<WebhookUpdated>('PUT', `/api/webhook/${segment(id)}`, body),
      /** DELETE /api/webhook/{id} */
      delete: (id: number) => http.request<void>('DELETE', `/api/webhook/${segment(id)}`),
      /** POST /api/webhook/{id}/test: a signed webhook.test event delivered now. */
      test: (id: number) => http.request<WebhookTestSent>('POST', `/api/webhook/${segment(id)}/test`),
      /** GET /api/webhook/{id}/deliveries: its latest deliveries, newest first. */
      deliveries: (id: number, params: { limit?: number } = {}) =>
        http.request<WebhookDelivery[]>('GET', `/api/webhook/${segment(id)}/deliveries${pageQuery(params)}`),
      /** POST /api/webhook/deliveries/{id}/resend: one delivery sent again. */
      resend: (deliveryId: number) =>
        http.request<WebhookDelivery>('POST', `/api/webhook/deliveries/${segment(deliveryId)}/resend`),
      /** POST /api/webhook/{id}/rotate-secret: a new whsec_ secret; the old one signs too for `overlapHours` (24). */
      rotateSecret: (id: number, options: { overlapHours?: number } = {}) =>
        http.request<WebhookSecret>('POST', `/api/webhook/${segment(id)}/rotate-secret`, options),
      /** POST /api/webhook/{id}/recover: the events since `since` (until `until`) queued to it again. */
      recover: (id: number, body: { since: string; until?: string }) =>
        http.request<WebhookRecovered>('POST', `/api/webhook/${segment(id)}/recover`, body),
      /** GET /api/webhook/{id}/stats: delivered, failed and pending over the last `hours` (24). */
      stats: (id: number, params: { hours?: number } = {}) =>
        http.request<WebhookStats>('GET', `/api/webhook/${segment(id)}/stats${pageQuery(params)}`),
    };
    this.customers = {
      /** POST /api/customers: name, e-mail, CPF or CNPJ (check digits verified), phone. */
      create: (body: CustomerCreate) => http.request<Customer>('POST', '/api/customers', body),
      /** GET /api/customers: a page, newest first. */
      list: (params: { limit?: number; cursor?: string } = {}) =>
        http.request<CustomerPage>('GET', `/api/customers${pageQuery(params)}`),
      /** GET /api/customers/{id}, with the saved cards. */
      retrieve: (id: string) => http.request<Customer>('GET', `/api/customers/${segment(id)}`),
      /** POST /api/customers/{id}/cards: saves a card on file from a one-time token (tokenize first). */
      saveCard: (id: string, token: string) =>
        http.request<SavedCard>('POST', `/api/customers/${segment(id)}/cards`, { token }),
      /** DELETE /api/customers/{id}/cards/{cardId}: the card charges nothing any more. */
      deleteCard: (id: string, cardId: string) =>
        http.request<void>('DELETE', `/api/customers/${segment(id)}/cards/${segment(cardId)}`),
    };
    this.plans = {
      /** POST /api/plans: an amount billed every week, month or year (intervalCount), with an optional trial. */
      create: (body: PlanCreate) => http.request<Plan>('POST', '/api/plans', body),
      /** GET /api/plans: a page, newest first. */
      list: (params: { limit?: number; cursor?: string } = {}) =>
        http.request<PlanPage>('GET', `/api/plans${pageQuery(params)}`),
      /** GET /api/plans/{id} */
      retrieve: (id: string) => http.request<Plan>('GET', `/api/plans/${segment(id)}`),
      /** PATCH /api/plans/{id}: rename or (de)activate; the amount never changes. */
      update: (id: string, body: { name?: string; active?: boolean }) =>
        http.request<Plan>('PATCH', `/api/plans/${segment(id)}`, body),
    };
    this.subscriptions = {
      /** POST /api/subscriptions: a customer on a plan, by saved card (cardId; without it the customer gives the card on the e-mailed billing page), PIX or BOLETO. */
      create: (body: SubscriptionCreate) => http.request<Subscription>('POST', '/api/subscriptions', body),
      /** GET /api/subscriptions: a page, newest first (customerId and status filter it). */
      list: (
        params: {
          limit?: number;
          cursor?: string;
          customerId?: string;
          status?: Subscription['status'];
        } = {},
      ) => http.request<SubscriptionPage>('GET', `/api/subscriptions${pageQuery(params)}`),
      /** GET /api/subscriptions/{id} */
      retrieve: (id: string) => http.request<Subscription>('GET', `/api/subscriptions/${segment(id)}`),
      /** PATCH /api/subscriptions/{id}: another plan from the next period on, or another saved card now. */
      update: (id: string, body: { planId?: string; cardId?: string }) =>
        http.request<Subscription>('PATCH', `/api/subscriptions/${segment(id)}`, body),
      /** POST /api/subscriptions/{id}/cancel: now, or when the current period ends (atPeriodEnd). */
      cancel: (id: string, options: { atPeriodEnd?: boolean } = {}) =>
        http.request<Subscription>('POST', `/api/subscriptions/${segment(id)}/cancel`, options),
    };
    this.sandbox = {
      /**
       * POST /api/sandbox/sales/{id}/status {status: "PAGO"}: pays a test charge as the processor's callback
       * would (sandbox only), so its webhooks are sent as for a real payment.
       */
      pay: (id: string | number) =>
        http.request<Sale>('POST', `/api/sandbox/sales/${segment(id)}/status`, { status: 'PAGO' }),
      /** POST /api/sandbox/sales/{id}/status: any status a processor could report (RECUSADO, ESTORNADO, …). */
      setStatus: (id: string | number, status: string) =>
        http.request<Sale>('POST', `/api/sandbox/sales/${segment(id)}/status`, { status }),
      /** POST /api/sandbox/sales: a sale as the legacy sales API makes it (sandbox only). */
      createSale: (body: SandboxSaleCreate) => http.request<Sale>('POST', '/api/sandbox/sales', body),
      /** POST /api/sandbox/sales/{id}/dispute: a chargeback or MED opened against a paid sale. */
      openDispute: (id: string | number, body: SandboxDisputeOpen) =>
        http.request<Dispute>('POST', `/api/sandbox/sales/${segment(id)}/dispute`, body),
      /** POST /api/sandbox/disputes/{id}/outcome: the processor's verdict on an answered dispute. */
      decideDispute: (id: string, outcome: 'won' | 'lost') =>
        http.request<Dispute>('POST', `/api/sandbox/disputes/${segment(id)}/outcome`, { outcome }),
      /** POST /api/sandbox/cashouts/{id}/result {result: "COMPLETED"}: the payout provider pays a PROCESSING withdrawal. */
      completeWithdrawal: (id: string | number) =>
        http.request<Withdrawal>('POST', `/api/sandbox/cashouts/${segment(id)}/result`, {
          result: 'COMPLETED',
        }),
      /** POST /api/sandbox/cashouts/{id}/result {result: "REJECTED"}: the provider refuses it (the money comes back). */
      rejectWithdrawal: (id: string | number) =>
        http.request<Withdrawal>('POST', `/api/sandbox/cashouts/${segment(id)}/result`, {
          result: 'REJECTED',
        }),
      /** POST /api/sandbox/cashouts/{id}/cancel: a withdrawal not yet sent canceled. */
      cancelWithdrawal: (id: string | number) =>
        http.request<Withdrawal>('POST', `/api/sandbox/cashouts/${segment(id)}/cancel`),
      /** POST /api/sandbox/recurrences: a Pix Automático recurrence authorized by the payer at once. */
      createRecurrence: (body: SandboxRecurrenceCreate) =>
        http.request<SandboxRecurrence>('POST', '/api/sandbox/recurrences', body),
      /** POST /api/sandbox/recurrences/{idRec}/cycles: the recurrence's next cycle charged now. */
      runRecurrenceCycle: (idRec: string) =>
        http.request<unknown>('POST', `/api/sandbox/recurrences/${segment(idRec)}/cycles`),
      /** POST /api/sandbox/carts: a cart, for the abandoned-cart event. */
      createCart: (body: SandboxCartCreate) => http.request<SandboxCart>('POST', '/api/sandbox/carts', body),
      /** POST /api/sandbox/carts/{id}/abandon: the cart abandoned now (its event sent). */
      abandonCart: (id: string | number) =>
        http.request<SandboxCart>('POST', `/api/sandbox/carts/${segment(id)}/abandon`),
      /** POST /api/sandbox/anticipations: an anticipation asked for and decided at once (paid or rejected). */
      decideAnticipation: (body: AnticipationRequest & { outcome: 'paid' | 'rejected' }) =>
        http.request<Anticipation>('POST', '/api/sandbox/anticipations', body),
      /** POST /api/sandbox/subscriptions/{id}/advance: the next charge (or retry) made now, as the scheduler would. */
      advanceSubscription: (id: string) =>
        http.request<Subscription>('POST', `/api/sandbox/subscriptions/${segment(id)}/advance`),
    };
    this.events = {
      /** GET /api/events: a page, newest first. */
      list: (params: EventListParams = {}) => http.request<EventPage>('GET', `/api/events${query(params)}`),
      /** Every event of every page, newest first. */
      iterate: async function* (params: Omit<EventListParams, 'cursor'> = {}): AsyncGenerator<Event> {
        let cursor: string | undefined;
        do {
          const page: EventPage = await http.request<EventPage>(
            'GET',
            `/api/events${query({ ...params, ...(cursor ? { cursor } : {}) })}`,
          );
          for (const event of page.data) yield event as Event;
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
      },
      /** GET /api/events/{id} */
      retrieve: (id: string) => http.request<Event>('GET', `/api/events/${segment(id)}`),
      /**
       * GET /api/events/stream: the account's events as they happen (Server-Sent Events); the answer's body is
       * the stream, read until `signal` aborts it. `lastEventId` (the `id:` of the last event read, sent as
       * Last-Event-ID) resumes a stream that dropped: the events after it come first, then the live ones.
       */
      stream: (
        params: { type?: string | readonly string[]; signal?: AbortSignal; lastEventId?: string } = {},
      ) =>
        http.send(
          'GET',
          `/api/events/stream${query({ ...(params.type ? { type: params.type } : {}) })}`,
          undefined,
          {
            accept: 'text/event-stream',
            signal: params.signal ?? new AbortController().signal,
            ...(params.lastEventId ? { headers: { 'last-event-id': params.lastEventId } } : {}),
          },
        ),
    };
  }
}
