import { Type } from 'typebox';
import { ListPage } from '../platform/http/common-schemas.js';
import { SplitRuleIn } from '../sales/index.js';

const Method = Type.Union([Type.Literal('CREDIT_CARD'), Type.Literal('PIX'), Type.Literal('BOLETO')]);
const Interval = Type.Union([Type.Literal('week'), Type.Literal('month'), Type.Literal('year')]);
const Status = Type.Union([
  Type.Literal('incomplete'),
  Type.Literal('incomplete_expired'),
  Type.Literal('trialing'),
  Type.Literal('active'),
  Type.Literal('past_due'),
  Type.Literal('unpaid'),
  Type.Literal('canceled'),
]);
const LocalDate = (description: string) => Type.String({ examples: ['2026-11-26'], description });

export const PlanBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'One line of plain text, printed in the e-mails the gateway sends: no link, web address, domain name or IP address (400)',
    }),
    amountCents: Type.Integer({
      minimum: 1,
      maximum: 100_000_000,
      description: 'Every period’s amount; never changes',
    }),
    interval: Interval,
    intervalCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: 'Default 1' })),
    trialDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 90, description: 'Default 0' })),
    methods: Type.Array(Method, { minItems: 1, maxItems: 3 }),
  },
  { additionalProperties: false },
);

export const PlanPatch = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'One line of plain text, printed in the e-mails the gateway sends: no link, web address, domain name or IP address (400)',
      }),
    ),
    active: Type.Optional(Type.Boolean({ description: 'An inactive plan takes no new subscriptions' })),
  },
  { additionalProperties: false },
);

export const Plan = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  amountCents: Type.Integer(),
  interval: Interval,
  intervalCount: Type.Integer(),
  trialDays: Type.Integer(),
  methods: Type.Array(Method),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const PlansPage = ListPage(Plan);

const Address = Type.Object(
  {
    street: Type.String({ minLength: 1, maxLength: 200, examples: ['Rua das Flores'] }),
    number: Type.String({ minLength: 1, maxLength: 20, examples: ['100'] }),
    district: Type.String({ minLength: 1, maxLength: 100, examples: ['Centro'] }),
    city: Type.String({ minLength: 1, maxLength: 100, examples: ['São Paulo'] }),
    state: Type.String({ minLength: 2, maxLength: 2, examples: ['SP'] }),
    zipCode: Type.String({ minLength: 8, maxLength: 9, examples: ['01310-100'] }),
  },
  { additionalProperties: false, description: 'BOLETO only: the payer address printed on each boleto' },
);

export const SubscriptionBody = Type.Object(
  {
    customerId: Type.String({ maxLength: 64 }),
    planId: Type.String({ maxLength: 64 }),
    paymentMethod: Method,
    cardId: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'CREDIT_CARD: a saved card of the customer; left out, the customer is e-mailed their billing page, where they give the card and the first period is charged (incomplete until then, nextChargeAt null; expired after 23 hours without it)',
      }),
    ),
    startDate: Type.Optional(
      Type.String({ maxLength: 10, description: 'YYYY-MM-DD, today (São Paulo) by default' }),
    ),
    address: Type.Optional(Address),
    idRec: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 35,
        description:
          'PIX: the Pix Automático mandate (idRec) the customer authorised for this plan; by default the newest one of the customer’s CPF/CNPJ that fits the plan, else each period is a charge with due date e-mailed to the customer',
      }),
    ),
    split: Type.Optional(
      Type.Array(SplitRuleIn, {
        minItems: 1,
        maxItems: 10,
        description:
          "Split payments, as a charge's split (checked against the plan's amount): every period's sale carries it",
      }),
    ),
  },
  { additionalProperties: false },
);

export const SubscriptionPatch = Type.Object(
  {
    planId: Type.Optional(Type.String({ maxLength: 64, description: 'The plan from the next period on' })),
    cardId: Type.Optional(Type.String({ maxLength: 64, description: 'Another saved card of the customer' })),
  },
  { additionalProperties: false },
);

export const CancelBody = Type.Object(
  {
    atPeriodEnd: Type.Optional(
      Type.Boolean({ description: 'Cancel when the current period ends instead of now (default false)' }),
    ),
  },
  { additionalProperties: false },
);

export const Subscription = Type.Object({
  id: Type.String({ format: 'uuid' }),
  customerId: Type.String({ format: 'uuid' }),
  planId: Type.String({ format: 'uuid' }),
  nextPlanId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'A plan change waiting for the next period',
  }),
  paymentMethod: Method,
  cardId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  idRec: Type.Union([Type.String(), Type.Null()], {
    description:
      'PIX: the Pix Automático mandate each period is debited through; null: charges with due date',
  }),
  status: Status,
  amountCents: Type.Integer({ description: 'The current plan’s amount per period' }),
  currentPeriodStart: LocalDate('The current period’s first day (the trial’s while trialing)'),
  currentPeriodEnd: LocalDate('The day the current period ends (the next one starts)'),
  nextChargeAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When the next charge is made: the next period’s (its start for cards, BOLETO_DAYS_BEFORE days before it for boleto and Pix with due date), or the next retry during dunning; null once canceled, unpaid or incomplete_expired',
  }),
  trialEnd: Type.Union([LocalDate('The trial’s last day + 1'), Type.Null()]),
  cancelAtPeriodEnd: Type.Boolean(),
  canceledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  split: Type.Union([Type.Array(SplitRuleIn), Type.Null()], {
    description: 'The split every period’s sale carries, as given; null: none',
  }),
  cancelReason: Type.Union(
    [Type.Literal('requested'), Type.Literal('unpaid'), Type.Literal('account_closed'), Type.Null()],
    {
      description:
        'Why it was canceled: the merchant or the customer asked, dunning ended it (SUBSCRIPTION_CANCEL_WHEN_UNPAID), or its account was closed',
    },
  ),
  billingUrl: Type.Union([Type.String(), Type.Null()], {
    description:
      "The customer's own page (change the card, cancel at period end): a link that acts as the customer, so null for a caller who may not change subscriptions (a read key, a panel role without charges)",
  }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const SubscriptionsPage = ListPage(Subscription);

export const IdPath = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.String({ maxLength: 3 })),
});
export const SubscriptionsQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.String({ maxLength: 3 })),
  customerId: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Status),
});

/** What the subscriber's page `/billing/<token>` shows and its routes answer (the checkout page's build reads it). */
export const BillingPage = Type.Object({
  merchantName: Type.String(),
  planName: Type.String(),
  amountCents: Type.Integer(),
  interval: Type.Union([Type.Literal('week'), Type.Literal('month'), Type.Literal('year')]),
  intervalCount: Type.Integer(),
  status: Status,
  paymentMethod: Type.Union([Type.Literal('CREDIT_CARD'), Type.Literal('PIX'), Type.Literal('BOLETO')]),
  currentPeriodStart: Type.String(),
  currentPeriodEnd: Type.String(),
  nextChargeAt: Type.Union([Type.String(), Type.Null()]),
  nextPlan: Type.Union(
    [Type.Object({ name: Type.String(), amountCents: Type.Integer(), from: Type.String() }), Type.Null()],
    {
      description: 'A plan change coming: the plan, its price and the first day of the period it starts with',
    },
  ),
  nextChargeDue: Type.Union([Type.String(), Type.Null()], {
    description:
      'The first day of the period the next charge is for (its due date for a Pix or boleto; São Paulo date)',
  }),
  cancelAtPeriodEnd: Type.Boolean(),
  card: Type.Union([
    Type.Object({
      brand: Type.String(),
      lastFour: Type.String(),
      expMonth: Type.Integer(),
      expYear: Type.Integer(),
    }),
    Type.Null(),
  ]),
  sales: Type.Array(
    Type.Object({
      id: Type.String(),
      status: Type.String(),
      amountCents: Type.Integer(),
      date: Type.String(),
      period: Type.Union([Type.Object({ start: Type.String(), end: Type.String() }), Type.Null()], {
        description: 'The period the charge is for (São Paulo dates)',
      }),
      pixCopyPaste: Type.Union([Type.String(), Type.Null()]),
      pixQrCode: Type.Union([Type.String(), Type.Null()], {
        description: 'An open Pix charge’s BR Code as an SVG QR code (data: URI)',
      }),
      boletoPdfUrl: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
