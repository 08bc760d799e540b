import { Type } from 'typebox';
import { ListPage } from '../platform/http/common-schemas.js';
import { MAX_CHARGE_CENTS } from '../platform/money/money.js';
import { SaleRisk } from '../risk/index.js';
import { SaleRefund } from '../webhooks/index.js';
import { PAYMENT_METHODS } from './list-filters.js';
import { SALE_STATUSES } from './settlement/status-machine.js';

// `type: [x, 'null']` rather than anyOf: the response serializer handles it without trying each branch.
const NullableString = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
const NullableInteger = () => Type.Unsafe<number | null>({ type: ['integer', 'null'] });
const NullableObject = () =>
  Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true });

export const SaleStatusSchema = Type.Enum([...SALE_STATUSES]);

/** A sale's buyer and items as a request gives them (charges, and the sandbox's sales). */
export const CustomerIn = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ minLength: 3, maxLength: 320 }),
    document: Type.String({ minLength: 11, maxLength: 20 }),
    phone: Type.String({ minLength: 10, maxLength: 20 }),
  },
  {
    examples: [
      {
        name: 'Maria Silva',
        email: 'maria@example.com',
        document: '529.982.247-25',
        phone: '+55 11 98765-4321',
      },
    ],
  },
);

export const ItemIn = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    unitPrice: Type.Integer({ minimum: 0, maximum: MAX_CHARGE_CENTS, description: 'Cents' }),
    quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
    tangible: Type.Boolean(),
  },
  { examples: [{ title: 'Camiseta', unitPrice: 4990, quantity: 2, tangible: true }] },
);

export const CustomerOut = Type.Object({
  name: Type.String(),
  email: Type.String(),
  document: Type.String(),
  phone: Type.String(),
});

/** The API contract's Sale object, in its table order; idRec/contrato only on PIX_AUTOMATICO sales. */
/** A realistic sale, for the API document. */
const SALE_EXAMPLE = {
  id: 1042,
  uuid: '0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41',
  status: 'PAGO',
  amount: 9980,
  netAmount: 9582,
  systemFee: 398,
  reserveAmount: 0,
  paymentMethod: 'PIX',
  date: '2026-11-25T13:45:12.345Z',
  completedAt: '2026-11-25T13:47:03.120Z',
  customer: {
    name: 'Maria Silva',
    email: 'maria@example.com',
    document: '52998224725',
    phone: '5511987654321',
  },
  items: [{ id: 2210, title: 'Camiseta', unitPrice: 4990, quantity: 2, tangible: true }],
  pixKey: '00020101021226880014br.gov.bcb.pix2566pix.example.com/qr/v2/9d36b84f5204000053039865802BR6304A1B2',
  cardLastFour: null,
  cardBrand: null,
  boletoCode: null,
  externalTransactionId: '0b6f1c3e5a8e4c6a9d1b2f6f0d3a8e41',
  installments: null,
  shipping: { street: 'Rua das Flores', number: '100', city: 'São Paulo', state: 'SP', zipCode: '01001000' },
  metadata: { orderId: 'pedido-1001' },
  expiresAt: '2026-11-25T14:45:12.345Z',
  refundedAmount: 0,
  paidAmount: 9980,
};

/** A split sale's parties: each rule with its netCents, then the platform's (recipientId null). */
export const SaleSplit = Type.Array(
  Type.Object({
    recipientId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The recipient; null for the platform (the account itself), always last',
    }),
    amountCents: Type.Optional(Type.Integer()),
    percent: Type.Optional(Type.Number()),
    chargeFees: Type.Boolean(),
    liable: Type.Boolean(),
    netCents: Type.Integer({ description: "What enters this party's balance when the sale is paid" }),
  }),
  { description: 'Split payments only: who gets what of the sale' },
);

export const Sale = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String({ format: 'uuid' }),
    status: Type.String({ enum: [...SALE_STATUSES] }),
    amount: Type.Integer(),
    netAmount: Type.Integer(),
    systemFee: Type.Integer(),
    reserveAmount: Type.Integer(),
    paymentMethod: Type.String({ enum: [...PAYMENT_METHODS] }),
    date: Type.String({ format: 'date-time' }),
    completedAt: NullableString({ format: 'date-time' }),
    customer: CustomerOut,
    items: Type.Array(
      Type.Object({
        id: Type.Integer(),
        title: Type.String(),
        unitPrice: Type.Integer(),
        quantity: Type.Integer(),
        tangible: Type.Boolean(),
      }),
    ),
    pixKey: NullableString(),
    cardLastFour: NullableString(),
    cardBrand: NullableString(),
    boletoCode: NullableString(),
    externalTransactionId: Type.String(),
    installments: NullableInteger(),
    shipping: NullableObject(),
    metadata: Type.Record(Type.String(), Type.String(), {
      description: "The charge's metadata as given; {} when none",
    }),
    expiresAt: NullableString({
      format: 'date-time',
      description: 'When an unpaid charge expires; null for other sales',
    }),
    refundedAmount: Type.Integer({
      description:
        'Cents returned to the payer by refunds made so far; the sale is ESTORNADO when it reaches what was paid',
    }),
    paidAmount: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      description:
        'What the payer paid, in cents, set when the sale becomes PAGO (a boleto: with fine and interest or less ' +
        'its discount; a card: what was captured); null until paid',
    }),
    idRec: Type.Optional(Type.String()),
    contrato: Type.Optional(Type.String()),
    refusalReason: Type.Optional(
      Type.Object(
        { code: Type.String(), message: Type.String() },
        {
          description:
            "A refused card sale (RECUSADO): the acquirer's code and message; a card sale FALHA because the acquirer never answered: code no_answer",
        },
      ),
    ),
    risk: Type.Optional(SaleRisk),
    boleto: Type.Optional(
      Type.Object(
        {
          barcode: Type.String({ description: '44 digits (FEBRABAN)' }),
          digitableLine: Type.String({ description: 'The linha digitável, 47 digits' }),
          dueDate: Type.String(),
          nossoNumero: Type.String(),
          pdfUrl: Type.String({ description: "The payer's link to the PDF (no key needed)" }),
          pixCopyPaste: Type.String(),
          pixQrCode: Type.String(),
        },
        { description: 'BOLETO sales: the boleto híbrido' },
      ),
    ),
    paymentLinkId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Sales paid through a payment link: the link' }),
    ),
    checkoutSessionId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Sales paid through a checkout session: the session' }),
    ),
    split: Type.Optional(SaleSplit),
    subscriptionId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: "A subscription's sales: the subscription whose period it charges",
      }),
    ),
  },
  { examples: [SALE_EXAMPLE] },
);

/** The refund route's answer: the Sale after the refund, with the refund it made (or found by its key). */
export const RefundedSale = Type.Object(
  { ...Sale.properties, refund: SaleRefund },
  {
    description: "The Sale (refundedAmount after this refund's effect, once made) and the refund",
    examples: [
      {
        ...SALE_EXAMPLE,
        refundedAmount: 2000,
        refund: {
          id: '2c9d7e4a-1f3b-4a5c-8d6e-7f8a9b0c1d2e',
          amountCents: 2000,
          status: 'succeeded',
          reason: null,
          createdAt: '2026-11-25T14:02:10.441Z',
          completedAt: '2026-11-25T14:02:11.007Z',
          // the example sale's net share of 2000 (9582 × 2000 / 9980, rounded down), and the fee given back
          allocation: [
            { party: 'platform', amountCents: 1920, fromReceivableCents: 0, fromAvailableCents: 1920 },
          ],
          feeReturnedCents: 80,
        },
      },
    ],
  },
);

/** A page of the panel's sales list, newest first. */
/** GET /api/transactions/{id}/refunds: the sale's refunds, oldest first. */
export const RefundList = Type.Array(SaleRefund);

export const SalesPage = ListPage(Sale);

// Any text: the handler answers every malformed id with the same documented 400.
export const IdPath = Type.Object({ id: Type.String() });

/** What a refund answers besides the codes every route can (the API's route and the panel's). */
export const REFUND_ERRORS = [
  'CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'INSUFFICIENT_BALANCE',
  'MAXIMUM_VALUE',
  'NOT_FOUND',
  'PROCESSOR_ERROR',
  'PROCESSOR_UNAVAILABLE',
] as const;

/** POST /api/transactions/{id}/refund: how much to refund; the body may be left out (all that is left). */
export const RefundBody = Type.Object(
  {
    amountCents: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_CHARGE_CENTS,
        description: 'Cents to return to the payer; all that is left of the sale when absent',
        examples: [1500],
      }),
    ),
  },
  { additionalProperties: false },
);
