import { Type } from 'typebox';
import { StatementQuery } from '../ledger/index.js';
import { ListPage } from '../platform/http/common-schemas.js';

export const RecipientBody = Type.Object(
  {
    name: Type.Unknown({
      description:
        'The recipient’s name, 1–200 characters of one line of plain text: no link, web address, domain name or IP address (it is printed in e-mails)',
    }),
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
  active: Type.Boolean({
    description: 'false: it takes no new split (400); its balance, receivables and payouts go on',
  }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const RecipientPage = ListPage(Recipient);

export const RecipientBalanceBody = Type.Object(
  {
    available: Type.Integer({
      description: 'Cents that may be cashed out (negative: a debt left by a dispute)',
    }),
    blocked: Type.Integer({
      description: 'Cents held (refunds in progress, disputes, cashouts in progress)',
    }),
    receivable: Type.Integer({ description: 'Cents of card installments still to come (not part of total)' }),
    total: Type.Integer({ description: 'Cents; equals available + blocked, as an account’s balance' }),
  },
  { examples: [{ available: 15000, blocked: 0, receivable: 42000, total: 15000 }] },
);

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

export const RecipientPatchBody = Type.Object(
  {
    name: Type.Optional(Type.Unknown({ description: 'As at creation: 1–200 characters, plain text' })),
    email: Type.Optional(Type.Unknown({ description: 'An e-mail address' })),
    pixKey: Type.Optional(
      Type.Unknown({
        description: 'Where its cashouts are paid; checked against pixKeyType (the new or current)',
      }),
    ),
    pixKeyType: Type.Optional(
      Type.Unknown({ description: 'CPF, CNPJ, EMAIL, PHONE or RANDOM (with a pixKey of that type)' }),
    ),
    transferInterval: Type.Optional(Type.Unknown({ description: 'manual, daily or weekly' })),
    active: Type.Optional(
      Type.Unknown({
        description:
          'false: it takes no new split (a charge, link or checkout session naming it → 400); its balance, receivables and payouts (automatic ones too) go on. true: it takes splits again',
      }),
    ),
    document: Type.Optional(
      Type.Unknown({ description: 'Never changes: a body with a document is refused (400 naming it)' }),
    ),
  },
  { examples: [{ name: 'Loja da Ana Ltda', active: false }] },
);

export const RecipientReceivablesQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'YYYY-MM-DD, default today (São Paulo)' })),
  to: Type.Optional(
    Type.String({ description: 'YYYY-MM-DD, default from + 90 days; at most 366 days after from' }),
  ),
});

export const RecipientReceivablesBody = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        date: Type.String({ description: 'YYYY-MM-DD (São Paulo): when it reaches available' }),
        amountCents: Type.Integer(),
        saleId: Type.String({ format: 'uuid' }),
        installment: Type.Integer({ description: 'Which installment of the card sale (1, 2, …)' }),
      }),
    ),
    totalCents: Type.Integer({ description: 'The sum of data' }),
  },
  {
    description: "A recipient's card installments not yet settled, by the date each reaches available",
    examples: [
      {
        data: [
          {
            date: '2026-12-25',
            amountCents: 3067,
            saleId: '0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41',
            installment: 1,
          },
        ],
        totalCents: 3067,
      },
    ],
  },
);

export const RecipientCursorQuery = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.String({ description: '1..100, default 20' })),
});

/** A recipient's statement is queried as the account's is. */
export const RecipientStatementQuery = StatementQuery;
