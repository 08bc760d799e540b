import { Type } from 'typebox';
import { MAX_CHARGE_CENTS } from '../platform/money/money.js';
import { EXPIRES_IN } from './charges.js';
import { CustomerIn, ItemIn, Sale } from './schemas.js';

/** One rule of a charge's split (checked in full by the sales module's parseSplit). */
export const SplitRuleIn = Type.Object(
  {
    recipientId: Type.String({ format: 'uuid', description: 'One of this account’s recipients' }),
    amountCents: Type.Optional(Type.Integer({ minimum: 1, description: 'Its share in cents' })),
    percent: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 100,
        description: 'Its share in percent, two decimals at most',
      }),
    ),
    chargeFees: Type.Optional(Type.Boolean({ description: 'This party pays the fees (one party at most)' })),
    liable: Type.Optional(
      Type.Boolean({ description: 'Refunds and lost disputes are taken from the liable parties' }),
    ),
  },
  { additionalProperties: false },
);

export const ChargeBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: MAX_CHARGE_CENTS }),
    paymentMethod: Type.Union([
      Type.Literal('PIX'),
      Type.Literal('BOLETO'),
      Type.Literal('CREDIT_CARD'),
      Type.Literal('DEBIT_CARD'),
    ]),
    customer: Type.Object({
      ...CustomerIn.properties,
      address: Type.Optional(
        Type.Object(
          {
            // lengths and forms are checked by the boleto's issue, in its own words (one message per field)
            street: Type.String({ maxLength: 1000, description: '1 to 200 characters' }),
            number: Type.String({ maxLength: 1000, description: '1 to 20 characters' }),
            district: Type.String({ maxLength: 1000, description: '1 to 100 characters' }),
            city: Type.String({ maxLength: 1000, description: '1 to 100 characters' }),
            state: Type.String({ maxLength: 1000, description: 'UF (SP, RJ, …)' }),
            zipCode: Type.String({
              maxLength: 1000,
              description: 'CEP: 8 digits, or 5 and 3 with a dash (01001000, 01001-000)',
            }),
          },
          { description: "The payer's address: required for BOLETO" },
        ),
      ),
    }),
    boleto: Type.Optional(
      Type.Object(
        {
          dueDate: Type.String({ description: 'YYYY-MM-DD, today to 365 days ahead (São Paulo)' }),
          daysAfterDue: Type.Optional(Type.Integer({ minimum: 0, maximum: 60 })),
          finePercent: Type.Optional(Type.String({ maxLength: 6, examples: ['2.00'] })),
          monthlyInterestPercent: Type.Optional(Type.String({ maxLength: 6, examples: ['1.00'] })),
          discount: Type.Optional(
            Type.Object(
              {
                amountCents: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
                untilDate: Type.String({ description: 'YYYY-MM-DD, at most the due date' }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Required for BOLETO (and taken by no other method): the boleto híbrido (barcode and Pix with due date)',
        },
      ),
    ),
    card: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              token: Type.String({
                minLength: 1,
                maxLength: 100,
                description: 'From POST /api/cards/tokens',
              }),
            },
            { additionalProperties: false },
          ),
          Type.Object(
            {
              cardId: Type.String({
                format: 'uuid',
                description:
                  "A saved card of one of this account's customers (POST /api/customers/{id}/cards)",
              }),
            },
            { additionalProperties: false },
          ),
        ],
        { description: 'Required for CREDIT_CARD and DEBIT_CARD: a one-time token, or a saved card' },
      ),
    ),
    installments: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 12, description: 'CREDIT_CARD only; 1 when absent' }),
    ),
    capture: Type.Optional(
      Type.Boolean({
        description:
          'Card sales: false authorizes only (EM_PROCESSAMENTO until POST /api/transactions/{id}/capture, within 7 days); true when absent',
      }),
    ),
    items: Type.Array(ItemIn, { minItems: 1, maxItems: 100 }),
    shipping: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
    postbackUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    expiresIn: Type.Optional(
      Type.Integer({
        minimum: EXPIRES_IN.min,
        maximum: EXPIRES_IN.max,
        description: 'PIX only: seconds the charge can be paid for (a boleto is due on its boleto.dueDate)',
      }),
    ),
    split: Type.Optional(
      Type.Array(SplitRuleIn, {
        maxItems: 10,
        description:
          "Split payments: the shares of the platform's recipients (the platform keeps the rest); at most 10 rules, amounts adding up to at most the amount, percents to at most 100, at most one rule with chargeFees (else the platform pays the fees)",
      }),
    ),
    metadata: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: Type.String({ maxLength: 500 }),
          maxProperties: 20,
          propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,40}$' },
          description:
            "The store's own data (an order number…): at most 20 keys of 1–40 characters of A–Z a–z 0–9 _ . -, string values of at most 500 characters",
          examples: [{ orderId: 'pedido-1001' }],
        },
      ),
    ),
  },
  {
    examples: [
      {
        amount: 9980,
        paymentMethod: 'PIX',
        customer: {
          name: 'Maria Silva',
          email: 'maria@example.com',
          document: '52998224725',
          phone: '5511987654321',
        },
        items: [{ title: 'Camiseta', unitPrice: 4990, quantity: 2, tangible: true }],
        postbackUrl: 'https://loja.example.com/pagamentos/retorno',
        expiresIn: 3600,
        metadata: { orderId: 'pedido-1001' },
      },
    ],
  },
);

export { IdempotencyHeaders as ChargeHeaders } from '../platform/http/idempotency-key.js';

/** The Sale object plus the QR code of its BR Code (only in the creation answer; card sales have none). */
export const CreatedSale = Type.Object({ ...Sale.properties, pixQrCode: Type.Optional(Type.String()) });
