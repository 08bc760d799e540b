import { Type } from 'typebox';

export const RecipientBody = Type.Object(
  {
    name: Type.Unknown({ description: 'The recipient’s name, 1–200 characters' }),
    document: Type.Unknown({ description: 'CPF (11 digits) or CNPJ (14 digits), punctuation allowed' }),
    email: Type.Unknown({ description: 'An e-mail address' }),
    pixKey: Type.Unknown({ description: 'Where its cashouts are paid' }),
    pixKeyType: Type.Unknown({ description: 'CPF, CNPJ, EMAIL, PHONE or RANDOM' }),
    transferInterval: Type.Optional(
      Type.Unknown({
        description:
          'manual (default): cashouts only when asked; daily (every day) or weekly (on Mondays): its whole available balance paid out at 06:00 São Paulo time',
      }),
    ),
  },
  {
    examples: [
      {
        name: 'Loja da Ana',
        document: '52998224725',
        email: 'ana@example.com',
        pixKey: 'ana@example.com',
        pixKeyType: 'EMAIL',
        transferInterval: 'manual',
      },
    ],
  },
);

export const Recipient = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  document: Type.String(),
  email: Type.String(),
  pixKey: Type.String(),
  pixKeyType: Type.String(),
  transferInterval: Type.Union([Type.Literal('manual'), Type.Literal('daily'), Type.Literal('weekly')]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const RecipientPage = Type.Object({
  data: Type.Array(Recipient),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const RecipientBalanceBody = Type.Object({
  available: Type.Integer({
    description: 'Cents that may be cashed out (negative: a debt left by a dispute)',
  }),
  blocked: Type.Integer({ description: 'Cents held (refunds in progress, disputes, cashouts in progress)' }),
  receivable: Type.Integer({ description: 'Cents of card installments still to come' }),
  total: Type.Integer(),
});

export const RecipientPath = Type.Object({
  id: Type.String({ examples: ['5f0c2b8e-7d14-4f3a-9b6e-1c2d3e4f5a6b'] }),
});

export const RecipientListQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ description: '1..100, default 20' })),
});

const LastAutomaticPayout = Type.Union(
  [
    Type.Object({
      period: Type.String({ description: 'The period (São Paulo date it began)' }),
      paid: Type.Boolean({ description: 'A withdrawal was made for it' }),
      skippedReason: Type.Union([Type.String(), Type.Null()], {
        description: 'Why it paid nothing: NOTHING_AVAILABLE, MINIMUM_VALUE, or the refusal’s error code',
      }),
    }),
    Type.Null(),
  ],
  { description: 'The latest automatic payout period (transferInterval daily or weekly); null: none yet' },
);

/** The panel's list of recipients: each with its balance and latest automatic payout. */
export const PanelRecipientPage = Type.Object({
  data: Type.Array(
    Type.Object({
      ...Recipient.properties,
      balance: RecipientBalanceBody,
      lastAutomaticPayout: LastAutomaticPayout,
    }),
  ),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
