import { Type } from 'typebox';
import { EVENT_NAMES, type EventName } from './events.js';

const Reais = (example: string) => Type.String({ description: 'Reais, two decimals', examples: [example] });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Uuid = (example: string) => Type.String({ format: 'uuid', examples: [example] });
const Iso = (example: string) => Type.String({ format: 'date-time', examples: [example] });

/**
 * `eventType`: the event the body is about, the X-Service-Event-Type header's value, so covered by the
 * signature (a receiver reads the event from here, never from a status: a partial refund's sale.refunded is PAGO).
 */
const EventTypeOf = (family: string, example: EventName) =>
  Type.Union(
    EVENT_NAMES.filter((e) => e.startsWith(`${family}.`)).map((e) => Type.Literal(e)),
    {
      description: 'The event of this delivery: equals X-Service-Event-Type and is covered by the signature',
      examples: [example],
    },
  );

/** The refund a sale.refunded fact is about (the refund route answers it too). */
export const SaleRefund = Type.Object(
  {
    id: Uuid('2c9d7e4a-1f3b-4a5c-8d6e-7f8a9b0c1d2e'),
    amountCents: Type.Integer({ examples: [2000] }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
      description: 'pending until the processor answers; succeeded once made; failed when not made',
      examples: ['succeeded'],
    }),
    reason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why it was made, when the gateway did not ask for it: a devolução made at the PSP, a dispute lost',
      examples: [null],
    }),
    createdAt: Iso('2026-11-25T14:02:10.441Z'),
    completedAt: Type.Union([Iso('2026-11-25T14:02:11.007Z'), Type.Null()]),
    allocation: Type.Array(
      Type.Object({
        party: Type.String({
          description: '"platform" (the account), or the id of the split recipient who paid this part',
          examples: ['platform'],
        }),
        amountCents: Type.Integer({ description: 'What this party paid of the refund', examples: [1860] }),
        fromReceivableCents: Type.Integer({
          description: "Taken from the sale's card installments not yet paid out (the last ones first)",
          examples: [1860],
        }),
        fromAvailableCents: Type.Integer({
          description: 'Taken from the available balance (the platform’s held reserve first)',
          examples: [0],
        }),
      }),
      {
        description:
          'Who paid for the refund: each liable party’s part (fromReceivableCents + fromAvailableCents = amountCents); the parts and feeReturnedCents add up to amountCents',
      },
    ),
    feeReturnedCents: Type.Integer({
      description: 'The part of the gateway’s fee this refund gives back (0 when none)',
      examples: [140],
    }),
  },
  { description: 'A refund of a sale' },
);

/** The body of a sale's permanent-webhook delivery (sale.* events), as sent, key for key. */
export const SaleNotification = Type.Object(
  {
    id: Type.Integer({ examples: [1042] }),
    uuid: Uuid('0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41'),
    userId: Type.Integer({ description: 'The account', examples: [7] }),
    amount: Type.String({ description: 'Cents, as a string', examples: ['10000'] }),
    date: Iso('2026-11-25T13:45:12.345Z'),
    status: Type.String({ examples: ['PAGO'] }),
    paymentMethod: Type.String({ examples: ['PIX'] }),
    customerDocument: Type.String({ examples: ['52998224725'] }),
    customerEmail: Type.String({ examples: ['maria@example.com'] }),
    customerName: Type.String({ examples: ['Maria Silva'] }),
    customerPhone: Type.String({ examples: ['5511987654321'] }),
    pixKey: Nullable(
      Type.String({ examples: ['00020101021226880014br.gov.bcb.pix2566pix.example.com/qr/v2/9d36b84f'] }),
    ),
    boletoCode: Nullable(Type.String()),
    shipping: Nullable(
      Type.String({ description: 'The shipping object as JSON text (tangible items only)' }),
    ),
    saleItems: Type.Array(
      Type.Object({
        id: Type.Integer(),
        saleId: Type.Integer(),
        saleUuid: Type.String({ format: 'uuid' }),
        title: Type.String({ examples: ['Camiseta'] }),
        unitPrice: Type.String({ examples: ['10000'] }),
        quantity: Type.Integer({ examples: [1] }),
        tangible: Type.Boolean(),
      }),
    ),
    fee: Type.Integer({ description: 'The system fee in cents', examples: [399] }),
    transactionId: Type.Integer({ examples: [1042] }),
    type: Type.Literal('TRANSACTION'),
    metadata: Type.Record(Type.String(), Type.String(), { examples: [{ orderId: 'pedido-1001' }] }),
    refundedAmount: Type.String({
      description:
        'Cents returned to the payer so far, as a string. A partial refund notifies sale.refunded with the sale still PAGO',
      examples: ['0'],
    }),
    paidAmount: Nullable(
      Type.String({
        description:
          'Cents the payer paid, as a string (null until paid): a boleto paid late with fine and interest, or early less its discount, differs from amount, and fee is computed on it',
        examples: ['10000'],
      }),
    ),
    cardBrand: Type.Optional(Nullable(Type.String({ description: 'Card sales only', examples: ['visa'] }))),
    cardLastFour: Type.Optional(
      Nullable(Type.String({ description: 'Card sales only', examples: ['1111'] })),
    ),
    installments: Type.Optional(
      Type.Union([Type.Integer({ description: 'Card sales only (null for debit)' }), Type.Null()]),
    ),
    refusalReason: Type.Optional(
      Type.Object(
        { code: Type.String(), message: Type.String() },
        { description: "A refused sale: the acquirer's code and message, or the risk rules' RISK_BLOCKED" },
      ),
    ),
    risk: Type.Optional(
      Type.Object(
        {
          decision: Type.String(),
          rule: Type.Union([Type.Integer(), Type.Null()]),
          ruleName: Type.Optional(Type.String()),
          reviewStatus: Type.Optional(Type.String()),
        },
        { description: "The risk rules' decision on the sale" },
      ),
    ),
    idRec: Type.Optional(Type.String({ description: 'Pix Automático sales only' })),
    contrato: Type.Optional(Type.String({ description: 'Pix Automático sales only' })),
    subscriptionId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: "A subscription's sales: the subscription whose period it charges",
      }),
    ),
    split: Type.Optional(
      Type.Array(
        Type.Object({
          recipientId: Nullable(
            Type.String({ description: 'The recipient; null for the platform, always last' }),
          ),
          amountCents: Type.Optional(Type.Integer()),
          percent: Type.Optional(Type.Number()),
          chargeFees: Type.Boolean(),
          liable: Type.Boolean(),
          netCents: Type.Integer({ description: "What enters this party's balance when the sale is paid" }),
        }),
        { description: 'Split payments only: who gets what of the sale' },
      ),
    ),
    paymentLinkId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Sales paid through a payment link: the link' }),
    ),
    checkoutSessionId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Sales paid through a checkout session: the session' }),
    ),
    refund: Type.Optional(
      Type.Union([SaleRefund, Type.Null()], {
        description:
          'sale.refunded only: the refund this fact is about (refundedAmount is the total after it); null when the ' +
          'sale was refunded in full without a refund of its own (a dispute lost)',
      }),
    ),
    eventType: EventTypeOf('sale', 'sale.paid'),
  },
  { description: 'A sale notification (permanent webhook)' },
);

/** The body of a withdrawal's delivery (withdrawal.* events). */
export const WithdrawalNotification = Type.Object(
  {
    id: Type.Integer({ examples: [311] }),
    uuid: Uuid('7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'),
    userId: Type.Integer({ examples: [7] }),
    amount: Reais('150.00'),
    pixKey: Type.String({ examples: ['52998224725'] }),
    pixKeyType: Type.String({ examples: ['CPF'] }),
    status: Type.String({
      description: 'PROCESSING, COMPLETED, REJECTED or CANCELLED',
      examples: ['COMPLETED'],
    }),
    externalId: Nullable(Type.String({ examples: ['E0000000020261125134512345abcdef'] })),
    createdAt: Iso('2026-11-25T13:45:12.345Z'),
    updatedAt: Iso('2026-11-25T13:45:14.001Z'),
    processedAt: Nullable(Iso('2026-11-25T13:45:14.001Z')),
    user: Type.Object({
      id: Type.Integer({ examples: [7] }),
      name: Type.String({ examples: ['Minha Loja'] }),
      email: Type.String({ examples: ['loja@example.com'] }),
    }),
    type: Type.Literal('WITHDRAWAL'),
    recipientId: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          "Set on a recipient's withdrawal (split payments): the recipient's id; delivered to the platform account's webhooks",
        examples: ['3f9a1c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b'],
      }),
    ),
    eventType: EventTypeOf('withdrawal', 'withdrawal.completed'),
  },
  { description: 'A withdrawal notification' },
);

/** The body of a cart's delivery (cart.* events). */
export const CartNotification = Type.Object(
  {
    id: Type.Integer({ examples: [55] }),
    uuid: Uuid('3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b'),
    userId: Type.Integer({ examples: [7] }),
    status: Type.String({ description: 'ABANDONED or RECOVERED', examples: ['ABANDONED'] }),
    customerName: Type.String({ examples: ['Maria Silva'] }),
    customerEmail: Type.String({ examples: ['maria@example.com'] }),
    customerDocument: Type.String({ examples: ['52998224725'] }),
    customerPhone: Type.String({ examples: ['5511987654321'] }),
    items: Type.Array(
      Type.Object({
        title: Type.String({ examples: ['Camiseta'] }),
        unitPrice: Type.String({ examples: ['10000'] }),
        quantity: Type.Integer({ examples: [1] }),
        tangible: Type.Boolean(),
      }),
    ),
    amount: Type.String({ description: 'Cents, as a string', examples: ['10000'] }),
    createdAt: Iso('2026-11-25T13:45:12.345Z'),
    saleId: Type.Union([Type.Integer(), Type.Null()]),
    saleUuid: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    type: Type.Literal('CART'),
    eventType: EventTypeOf('cart', 'cart.abandoned'),
  },
  { description: 'A cart notification' },
);

/** The body of a dispute's delivery (dispute.* events): the Dispute object, with `type`. */
export const DisputeNotification = Type.Object(
  {
    id: Uuid('5f0c2b8e-7d14-4f3a-9b6e-1c2d3e4f5a6b'),
    saleId: Uuid('0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41'),
    kind: Type.String({ description: 'chargeback (card) or med (Pix mediation)', examples: ['med'] }),
    status: Type.String({
      description: 'needs_response (dispute.opened), won (dispute.won), lost or accepted (dispute.lost)',
      examples: ['needs_response'],
    }),
    amountCents: Type.Integer({ examples: [10000] }),
    reason: Type.Union([Type.String({ examples: ['Pagador relata golpe'] }), Type.Null()]),
    respondBy: Iso('2026-12-02T13:45:12.345Z'),
    evidence: Type.Array(
      Type.Object({
        id: Uuid('8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d'),
        name: Type.String({ examples: ['comprovante-entrega.pdf'] }),
        contentType: Type.String({ examples: ['application/pdf'] }),
        size: Type.Integer({ examples: [48213] }),
      }),
    ),
    createdAt: Iso('2026-11-25T13:45:12.345Z'),
    closedAt: Type.Union([Iso('2026-11-28T10:02:41.118Z'), Type.Null()]),
    type: Type.Literal('DISPUTE'),
    eventType: EventTypeOf('dispute', 'dispute.opened'),
  },
  { description: 'A dispute notification' },
);

/** The body of an anticipation's delivery (anticipation.* events): the Anticipation object, with `type`. */
export const AnticipationNotification = Type.Object(
  {
    id: Uuid('3c1a9e52-8f0b-4d7e-a2c4-6b5d7e8f9a01'),
    status: Type.String({ description: 'paid (anticipation.paid) or rejected (anticipation.rejected)' }),
    grossCents: Type.Integer({ examples: [30000] }),
    feeCents: Type.Integer({ examples: [1794] }),
    netCents: Type.Integer({ examples: [28206] }),
    receivables: Type.Array(
      Type.Object({ date: Type.String({ examples: ['2026-12-25'] }), amountCents: Type.Integer() }),
    ),
    reason: Type.Union([Type.String(), Type.Null()]),
    createdAt: Iso('2026-11-25T13:45:12.345Z'),
    paidAt: Type.Union([Iso('2026-11-25T13:45:12.345Z'), Type.Null()]),
    type: Type.Literal('ANTICIPATION'),
    eventType: EventTypeOf('anticipation', 'anticipation.paid'),
  },
  { description: 'An anticipation notification' },
);

/** The body of a subscription's delivery (subscription.* and invoice.* events): the Subscription, with `type`. */
export const SubscriptionNotification = Type.Object(
  {
    id: Uuid('6d2e4f80-1a3b-4c5d-8e9f-0a1b2c3d4e5f'),
    customerId: Uuid('2a4c6e80-1b3d-4f5a-8c7e-9d0f1a2b3c4d'),
    planId: Uuid('9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b'),
    paymentMethod: Type.String({ examples: ['CREDIT_CARD'] }),
    status: Type.String({
      description: 'incomplete, incomplete_expired, trialing, active, past_due, unpaid or canceled',
      examples: ['active'],
    }),
    currentPeriodStart: Type.String({ examples: ['2026-11-25'] }),
    currentPeriodEnd: Type.String({ examples: ['2026-12-25'] }),
    nextChargeAt: Type.Union([Iso('2026-12-25T03:00:00.000Z'), Type.Null()]),
    cancelReason: Type.Union([Type.String({ examples: ['requested'] }), Type.Null()], {
      description: 'Why a canceled subscription was canceled: requested, unpaid or account_closed',
    }),
    invoice: Type.Optional(
      Type.Object(
        {
          saleId: Type.Union([Uuid('0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41'), Type.Null()]),
          periodStart: Type.String({ examples: ['2026-11-25'] }),
          periodEnd: Type.String({ examples: ['2026-12-25'] }),
          amountCents: Type.Integer({ examples: [4990] }),
          attempt: Type.Integer({ description: 'The try at this period: 1, then each retry', examples: [1] }),
        },
        { description: 'invoice.* events: the period charged and its sale' },
      ),
    ),
    type: Type.Literal('SUBSCRIPTION'),
    eventType: Type.Union(
      EVENT_NAMES.filter((e) => e.startsWith('subscription.') || e.startsWith('invoice.')).map((e) =>
        Type.Literal(e),
      ),
      {
        description:
          'The event of this delivery: equals X-Service-Event-Type and is covered by the signature',
        examples: ['invoice.paid'],
      },
    ),
  },
  { description: 'A subscription notification' },
);

export const NOTIFICATION_SCHEMAS = {
  SaleRefund,
  SaleNotification,
  WithdrawalNotification,
  CartNotification,
  DisputeNotification,
  AnticipationNotification,
  SubscriptionNotification,
};

const SUMMARIES: Record<EventName, string> = {
  'sale.pending': 'A charge was opened and awaits payment',
  'sale.paid': 'A sale was paid (its money is in the balance)',
  'sale.refused': 'A sale was refused or failed',
  'sale.canceled': 'A sale was cancelled (an unpaid charge expired or was cancelled)',
  'sale.refunded': 'A refund of a sale was made (one per refund; the last one makes the sale ESTORNADO)',
  'sale.chargeback': 'A paid sale is disputed (chargeback or MED)',
  'withdrawal.pending': 'A withdrawal was sent to the payout provider',
  'withdrawal.completed': 'A withdrawal was paid',
  'withdrawal.rejected': 'A withdrawal was rejected: its money is back in available',
  'withdrawal.canceled': 'A withdrawal was cancelled before it was sent',
  'cart.abandoned': 'A cart was abandoned',
  'cart.recovered': 'An abandoned cart was paid',
  'dispute.opened':
    'A paid sale is disputed: its amount left the available balance (deliver only when selected)',
  'dispute.won': 'A dispute was won: its amount is back in the available balance',
  'dispute.lost': 'A dispute was lost or accepted: its amount stays out of the balance',
  'anticipation.paid':
    'An anticipation was paid: its installments left receivable, the net is in available (deliver only when selected)',
  'anticipation.rejected':
    'An anticipation was refused (by an operator, or its installments were no longer there)',
  'subscription.created': 'A subscription was created (deliver only when selected)',
  'subscription.activated':
    'A subscription’s first period was paid (after its trial, if any): incomplete or trialing → active',
  'subscription.renewed': 'A subscription period after the first was paid: the subscription runs on',
  'subscription.past_due': "A renewal's charge failed: it is retried on the retry days",
  'subscription.unpaid': 'A renewal was still refused after its last retry: no more charges until a new card',
  'subscription.incomplete_expired':
    'A subscription’s first period was not paid within 23 hours (or after its last retry): it ends, nothing more is charged',
  'subscription.canceled':
    'A subscription was cancelled (asked, at its period end, unpaid with cancel-when-unpaid on, or its account closed: cancelReason)',
  'invoice.paid': "A subscription period's sale was paid",
  'invoice.failed': "A subscription period's charge failed (refused, or left unpaid)",
};

/** The OpenAPI `webhooks` section: one POST per event, with the headers every delivery carries. */
export function webhookOperations(): Record<string, object> {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  });
  return Object.fromEntries(
    (Object.keys(SUMMARIES) as EventName[]).map((event) => {
      const body = event.startsWith('sale.')
        ? 'SaleNotification'
        : event.startsWith('withdrawal.')
          ? 'WithdrawalNotification'
          : event.startsWith('dispute.')
            ? 'DisputeNotification'
            : event.startsWith('anticipation.')
              ? 'AnticipationNotification'
              : event.startsWith('subscription.') || event.startsWith('invoice.')
                ? 'SubscriptionNotification'
                : 'CartNotification';
      return [
        event,
        {
          post: {
            summary: SUMMARIES[event],
            description: `Sent to every webhook that selected ${event}; verify it with verifyWebhook (SDK) before acting.`,
            parameters: [
              header('X-Service-Signature', 'sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>'),
              header('X-Service-Timestamp', 'Unix seconds of the signature'),
              header(
                'X-Service-Event-Id',
                'The event id (the same on every retry; equals webhook-id): deduplicate on it, once the signature verified (it is not signed itself: webhook-id is, and the SDKs refuse a delivery where the two differ)',
              ),
              header('X-Service-Event-Type', event),
              header('webhook-id', 'Standard Webhooks: the event id'),
              header('webhook-timestamp', 'Standard Webhooks: Unix seconds'),
              header(
                'webhook-signature',
                'Standard Webhooks: v1,<base64 HMAC-SHA256> over "<id>.<timestamp>.<body>"',
              ),
            ],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${body}` } } },
            },
            responses: { '200': { description: 'Any 2xx: delivered. Anything else is retried.' } },
          },
        },
      ];
    }),
  );
}
