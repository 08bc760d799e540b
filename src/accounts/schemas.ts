import { Type } from 'typebox';

export const IpList = Type.Object({ ips: Type.Array(Type.String()) });
// Items are validated by the service so that a malformed entry gets INVALID_IP naming it, not a schema error.
// No maxItems: the service counts entries after normalization (TOO_MANY_IPS), and the body limit bounds it.
export const IpListBody = Type.Object({ ips: Type.Array(Type.Unknown()) });

const Percent = (example: string) =>
  Type.String({
    pattern: '^\\d{1,3}(\\.\\d{1,4})?$',
    description: 'Per cent, a decimal string',
    examples: [example],
  });
const Cents = (example: number) => Type.Integer({ minimum: 0, maximum: 100_000_000, examples: [example] });

const CreditPercent = Type.Object(
  { '1': Percent('3.49'), '2-6': Percent('4.29'), '7-12': Percent('4.99') },
  { description: 'A credit card sale: the percent of its installments band', additionalProperties: false },
);

/** The rates of a plan, as a fee plan and the merchant's fees both name them. */
const FeeRates = {
  pixPercent: Percent('0.99'),
  pixFixedCents: Cents(0),
  boletoFixedCents: Cents(349),
  creditPercent: CreditPercent,
  debitPercent: Percent('1.99'),
  anticipationMonthlyPercent: Percent('2.99'),
  cashoutFixedCents: Cents(150),
};

/** A fee plan as the contract names its fields (decisions.md, "Fee plans and anticipation"). */
export const FeePlan = Type.Object({
  id: Type.Integer({ examples: [1] }),
  name: Type.String({ examples: ['Padrão'] }),
  ...FeeRates,
});

export const FeePlanList = Type.Object({
  data: Type.Array(FeePlan),
  defaultPlanId: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'The plan FEE_PLAN_DEFAULT names, which an account approved without a plan of its own is put on; null: none (such an approval needs a plan chosen)',
  }),
});

/** A new plan: every field. */
export const FeePlanBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    pixPercent: Type.String(),
    pixFixedCents: Type.Integer(),
    boletoFixedCents: Type.Integer(),
    creditPercent: Type.Object(
      { '1': Type.String(), '2-6': Type.String(), '7-12': Type.String() },
      { additionalProperties: false },
    ),
    debitPercent: Type.String(),
    anticipationMonthlyPercent: Type.String(),
    cashoutFixedCents: Type.Integer(),
  },
  { additionalProperties: false },
);

/** A change of a plan: any of its fields. */
export const FeePlanPatch = Type.Partial(
  Type.Object(
    {
      ...FeePlanBody.properties,
      creditPercent: Type.Partial(FeePlanBody.properties.creditPercent, { additionalProperties: false }),
    },
    { additionalProperties: false },
  ),
  { additionalProperties: false },
);

/** What GET /api/fees answers: the plan in force, or the account's own rates in the plan's shape. */
export const MerchantFees = Type.Object({
  id: Type.Union([Type.Integer(), Type.Null()], { description: 'The plan (null: the account’s own rates)' }),
  name: Type.Union([Type.String(), Type.Null()]),
  source: Type.Union([Type.Literal('plan'), Type.Literal('account')]),
  ...FeeRates,
  accountRates: Type.Union([
    Type.Object(
      {
        salePercent: Type.String(),
        saleFixedCents: Type.Integer(),
        cardPercent: Type.String(),
        cardInstallmentPercent: Type.String(),
        cashoutPercent: Type.String(),
        cashoutFixedCents: Type.Integer(),
      },
      {
        description:
          'Without a plan: the rates as applied (PIX and boleto: salePercent + saleFixedCents; a card: cardPercent + cardInstallmentPercent per installment after the first, + saleFixedCents; a cashout: cashoutPercent + cashoutFixedCents)',
      },
    ),
    Type.Null(),
  ]),
});
