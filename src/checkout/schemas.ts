import { Type } from 'typebox';
import { ListPage, PageParams } from '../platform/http/common-schemas.js';
import { MAX_CHARGE_CENTS } from '../platform/money/money.js';
import { ChargeBody, ItemIn } from '../sales/index.js';
import { CHECKOUT_METHODS } from './links.data.js';
import { PAYER_TOKEN_PATTERN } from './payer-token.js';
import { SESSION_EXPIRES_IN } from './sessions.js';

const Cents = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_CHARGE_CENTS, description });
const Methods = Type.Array(Type.Union(CHECKOUT_METHODS.map((m) => Type.Literal(m))), {
  minItems: 1,
  maxItems: CHECKOUT_METHODS.length,
  description: `Payment methods offered: ${CHECKOUT_METHODS.join(', ')} (each at most once)`,
});
const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });
const NullableString = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
const NullableInteger = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...(description ? { description } : {}) });
/** The sale's metadata rules (POST /api/transactions): a link's or session's metadata is copied to its sales. */
const Metadata = ChargeBody.properties.metadata;
/** The sale's split rules (POST /api/transactions): every sale of the link or session is split so. */
const Split = ChargeBody.properties.split;
const SplitOut = Type.Optional(
  Type.Array(Type.Unknown(), { description: 'The split rules as given (split sales only)' }),
);
const MetadataOut = Type.Record(Type.String(), Type.String(), { description: 'As given; {} when none' });

export const LinkBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 120 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    amountCents: Type.Optional(
      Cents('A fixed amount; leave out to let the payer choose between minCents and maxCents'),
    ),
    minCents: Type.Optional(Cents('Open amounts: the least the payer may pay (default 100)')),
    maxCents: Type.Optional(Cents('Open amounts: the most the payer may pay (default the largest charge)')),
    methods: Methods,
    maxInstallments: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 12, description: 'CREDIT_CARD only' }),
    ),
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'ISO 8601 with offset; in the future' }),
    ),
    maxUses: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Paid sales it takes' }),
    ),
    successUrl: Type.Optional(Url('Where the payer goes once paid (http or https)')),
    metadata: Metadata,
    split: Split,
  },
  {
    additionalProperties: false,
    examples: [
      {
        title: 'Curso de fotografia',
        description: 'Acesso por 12 meses',
        amountCents: 19900,
        methods: ['PIX', 'BOLETO'],
        maxUses: 100,
        successUrl: 'https://loja.example.com/obrigado',
        metadata: { productId: 'curso-foto' },
      },
    ],
  },
);

export const PaymentLink = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String({ description: 'PUBLIC_URL/pay/<slug>: the page to send payers to' }),
  slug: Type.String({ description: '16 random characters (A–Z a–z 0–9 _ -)' }),
  active: Type.Boolean(),
  uses: Type.Integer({ description: 'Sales made through the link that were paid (refunded ones included)' }),
  usesInProgress: Type.Integer({
    description:
      'Sales of the link not paid yet that still may be (an open PIX charge, a boleto, an authorization): with maxUses, each holds a use until it ends, so uses + usesInProgress reaching maxUses turns new payers away (410)',
  }),
  title: Type.String(),
  description: NullableString(),
  amountCents: NullableInteger('Fixed amount; null when the payer chooses'),
  minCents: NullableInteger(),
  maxCents: NullableInteger(),
  methods: Type.Array(Type.String()),
  maxInstallments: NullableInteger(),
  expiresAt: NullableString({ format: 'date-time' }),
  maxUses: NullableInteger(),
  successUrl: NullableString(),
  metadata: MetadataOut,
  split: SplitOut,
  createdAt: Type.String({ format: 'date-time' }),
});

export const PaymentLinkPage = ListPage(PaymentLink);

export const LinkListQuery = Type.Object(PageParams);

export const LinkPatch = Type.Object(
  { active: Type.Boolean({ description: 'false: the link takes no more payments (410 on its page)' }) },
  { additionalProperties: false, examples: [{ active: false }] },
);

const CustomerPrefill = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
    document: Type.Optional(Type.String({ minLength: 11, maxLength: 20, description: 'CPF or CNPJ' })),
    phone: Type.Optional(Type.String({ minLength: 10, maxLength: 20 })),
  },
  { additionalProperties: false, description: 'The buyer, as far as known: the page asks for the rest' },
);

export const SessionBody = Type.Object(
  {
    amountCents: Cents('What the payer pays; the page cannot change it'),
    items: Type.Array(ItemIn, { minItems: 1, maxItems: 100 }),
    customer: Type.Optional(CustomerPrefill),
    methods: Methods,
    successUrl: Url('Where the payer goes once paid, with ?session_id=<id> added'),
    cancelUrl: Type.Optional(Url('Where the page sends a payer who gives up')),
    expiresIn: Type.Optional(
      Type.Integer({
        minimum: SESSION_EXPIRES_IN.min,
        maximum: SESSION_EXPIRES_IN.max,
        description: `Seconds the session stays open (default ${SESSION_EXPIRES_IN.default})`,
      }),
    ),
    metadata: Metadata,
    split: Split,
  },
  {
    additionalProperties: false,
    examples: [
      {
        amountCents: 9980,
        items: [{ title: 'Camiseta', unitPrice: 4990, quantity: 2, tangible: true }],
        customer: { name: 'Maria Silva', email: 'maria@example.com' },
        methods: ['PIX'],
        successUrl: 'https://loja.example.com/pedido/1001/obrigado',
        cancelUrl: 'https://loja.example.com/carrinho',
        expiresIn: 3600,
        metadata: { orderId: 'pedido-1001' },
      },
    ],
  },
);

const ItemOut = Type.Object({
  title: Type.String(),
  unitPrice: Type.Integer(),
  quantity: Type.Integer(),
  tangible: Type.Boolean(),
});
const SessionStatus = Type.Union([Type.Literal('open'), Type.Literal('paid'), Type.Literal('expired')]);

export const CheckoutSession = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String({ description: 'PUBLIC_URL/checkout/<id>: the page to send the payer to' }),
  status: SessionStatus,
  expiresAt: Type.String({ format: 'date-time' }),
  saleId: NullableString({
    format: 'uuid',
    description: 'The paid sale; while open, the last sale started (null before any)',
  }),
  amountCents: Type.Integer(),
  items: Type.Array(ItemOut),
  customer: Type.Union([CustomerPrefill, Type.Null()]),
  methods: Type.Array(Type.String()),
  successUrl: Type.String(),
  cancelUrl: NullableString(),
  metadata: MetadataOut,
  split: SplitOut,
  createdAt: Type.String({ format: 'date-time' }),
});

// what the payer's pages read and send
export const SlugPath = Type.Object({ slug: Type.String() });

export const PublicLink = Type.Object({
  title: Type.String(),
  description: NullableString(),
  amountCents: NullableInteger('Fixed amount; null when the payer chooses between minCents and maxCents'),
  minCents: NullableInteger(),
  maxCents: NullableInteger(),
  methods: Type.Array(Type.String()),
  maxInstallments: NullableInteger(),
  expiresAt: NullableString({ format: 'date-time' }),
  merchantName: Type.String(),
});

export const PublicSession = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.Union([Type.Literal('open'), Type.Literal('paid')]),
  amountCents: Type.Integer(),
  items: Type.Array(ItemOut),
  methods: Type.Array(Type.String()),
  expiresAt: Type.String({ format: 'date-time' }),
  merchantName: Type.String(),
  cancelUrl: NullableString(),
  redirectUrl: NullableString({ description: 'Once paid: successUrl with ?session_id=<id>' }),
});

const Payer = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ minLength: 3, maxLength: 320 }),
  document: Type.String({ minLength: 11, maxLength: 20, description: 'CPF or CNPJ, check digits verified' }),
  phone: Type.Optional(Type.String({ minLength: 10, maxLength: 20 })),
};
const PAYER_EXAMPLE = { name: 'Maria Silva', email: 'maria@example.com', document: '529.982.247-25' };
const PayerToken = Type.Optional(
  Type.String({
    pattern: PAYER_TOKEN_PATTERN,
    description:
      'The payerToken of an earlier answer to this page: the charge still open for this payer is answered again (none: a new payer)',
  }),
);

/** A link's payer (every method's body starts with it). */
const LinkPayer = {
  ...Payer,
  amountCents: Type.Optional(Cents('Open amounts only: within the link’s minCents and maxCents')),
};
/** A session's payer: a field the session gave may be left out. */
const SessionPayer = {
  name: Type.Optional(Payer.name),
  email: Type.Optional(Payer.email),
  document: Type.Optional(Payer.document),
  phone: Payer.phone,
};

export const LinkPayBody = Type.Object(
  { ...LinkPayer, payerToken: PayerToken },
  { additionalProperties: false, examples: [PAYER_EXAMPLE] },
);

export const SessionPayBody = Type.Object(
  { ...SessionPayer, payerToken: PayerToken },
  {
    additionalProperties: false,
    description:
      'The payer; a field the session gave may be left out. The amount and items are the session’s.',
    examples: [PAYER_EXAMPLE],
  },
);

export const PixPayment = Type.Object({
  saleId: Type.String({ format: 'uuid' }),
  amountCents: Type.Integer(),
  pixCopyPaste: Type.String({ description: 'The BR Code to paste in a bank app' }),
  pixQrCode: Type.String({ description: 'The BR Code as an SVG QR code (data: URI)' }),
  expiresAt: NullableString({ format: 'date-time' }),
  payerToken: Type.String({
    description:
      'Kept by the payer’s page and sent back with its next payment: only it is answered this charge again',
  }),
});

const Address = Type.Object(
  {
    street: Type.String({ minLength: 1, maxLength: 200 }),
    number: Type.String({ minLength: 1, maxLength: 20 }),
    district: Type.String({ minLength: 1, maxLength: 100 }),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    state: Type.String({ minLength: 2, maxLength: 2, description: 'UF: SP, RJ, …' }),
    zipCode: Type.String({ minLength: 8, maxLength: 9, description: 'CEP, 8 digits' }),
  },
  { additionalProperties: false, description: 'The payer’s address: a boleto is registered with it' },
);
const ADDRESS_EXAMPLE = {
  street: 'Rua das Flores',
  number: '100',
  district: 'Centro',
  city: 'São Paulo',
  state: 'SP',
  zipCode: '01001-000',
};

export const LinkBoletoBody = Type.Object(
  { ...LinkPayer, address: Address },
  { additionalProperties: false, examples: [{ ...PAYER_EXAMPLE, address: ADDRESS_EXAMPLE }] },
);

export const SessionBoletoBody = Type.Object(
  { ...SessionPayer, address: Address },
  {
    additionalProperties: false,
    description: 'The payer and their address; a field the session gave may be left out, the address may not',
    examples: [{ ...PAYER_EXAMPLE, address: ADDRESS_EXAMPLE }],
  },
);

export const BoletoPayment = Type.Object({
  saleId: Type.String({ format: 'uuid' }),
  amountCents: Type.Integer(),
  digitableLine: Type.String({ description: 'The linha digitável, 47 digits' }),
  pdfUrl: Type.String({ description: 'The boleto’s PDF, for the payer (no credentials)' }),
  dueDate: Type.String({ format: 'date' }),
  pixCopyPaste: Type.String({ description: 'The boleto híbrido’s BR Code: paying it pays the boleto' }),
  pixQrCode: Type.String({ description: 'That BR Code as an SVG QR code (data: URI)' }),
});

const Installments = Type.Integer({
  minimum: 1,
  maximum: 12,
  description: 'Credit installments: one of the options GET …/installments lists',
});
const CardTokenField = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The token POST …/card-token answered: single use, 15 minutes',
});
const CARD_EXAMPLE = { token: 'tok_3q2Jr8LhQmV1x0aKcT9yWbPz5nDfE7gU', installments: 3 };

export const InstallmentsQuery = Type.Object(
  {
    amountCents: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,11}$',
        description: 'Open amounts only: the amount the payer typed, in cents',
      }),
    ),
  },
  { additionalProperties: false },
);

export const InstallmentOptions = Type.Object({
  options: Type.Array(
    Type.Object({
      installments: Type.Integer(),
      installmentCents: Type.Integer({ description: 'Each installment but the first' }),
      firstInstallmentCents: Type.Integer({ description: 'The first carries the division’s remainder' }),
      totalCents: Type.Integer({ description: 'What the payer pays in all: the amount (no interest)' }),
    }),
  ),
});

export const LinkCardBody = Type.Object(
  { ...LinkPayer, token: CardTokenField, installments: Installments },
  { additionalProperties: false, examples: [{ ...PAYER_EXAMPLE, ...CARD_EXAMPLE }] },
);

export const SessionCardBody = Type.Object(
  { ...SessionPayer, token: CardTokenField, installments: Installments },
  { additionalProperties: false, examples: [{ ...PAYER_EXAMPLE, ...CARD_EXAMPLE }] },
);

export const CardPayment = Type.Object({
  saleId: Type.String({ format: 'uuid' }),
  status: Type.String({
    description:
      'PAGO (approved and captured), RECUSADO (refused: refusalCode says why; the payer may try again), or PENDENTE while the acquirer’s answer is awaited',
  }),
  amountCents: Type.Integer(),
  installments: Type.Integer(),
  cardBrand: NullableString(),
  cardLastFour: NullableString(),
  refusalCode: NullableString({ description: 'RECUSADO: the acquirer’s return code (e.g. 05, 57)' }),
  redirectUrl: NullableString({ description: 'PAGO: where the page sends the payer (null: stay)' }),
});
