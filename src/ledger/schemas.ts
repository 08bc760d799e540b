import { Type } from 'typebox';
import { ListPage, PageParams } from '../platform/http/common-schemas.js';

/** Balances in cents (the balance object of /api/public/balance). */
export const Balance = Type.Object({
  available: Type.Integer(),
  blocked: Type.Integer(),
  total: Type.Integer(),
});
/** The panel's balance: the API's, with the card money still to settle. */
export const PanelBalance = Type.Object({
  available: Type.Integer(),
  blocked: Type.Integer(),
  total: Type.Integer({ description: 'available + blocked' }),
  receivable: Type.Integer({ description: 'Card installments not yet available (not part of total)' }),
});
export const StatementLine = Type.Object({
  id: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  kind: Type.String(),
  description: Type.String(),
  refType: Type.String(),
  refId: Type.Integer(),
  availableDelta: Type.Integer({ description: 'cents' }),
  blockedDelta: Type.Integer({ description: 'cents' }),
  receivableDelta: Type.Integer({
    description:
      "cents: card installments still to settle (a card sale's net enters here; each installment leaves it for available as it falls due)",
  }),
  availableAfter: Type.Integer({ description: 'available balance right after this line, cents' }),
  blockedAfter: Type.Integer({ description: 'blocked balance right after this line, cents' }),
  receivableAfter: Type.Integer({ description: 'receivable balance right after this line, cents' }),
});

/** A statement's query, the account's and a recipient's alike. */
export const StatementQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'At or after (ISO 8601)' })),
  to: Type.Optional(
    Type.String({
      description:
        'Before this date-time, or on or before this date (a bare date is a whole day, São Paulo time; ISO 8601)',
    }),
  ),
  ...PageParams,
});

export const StatementPage = ListPage(StatementLine);

/** The overview's chart: per São Paulo day, oldest first, every day listed. */
export const DailyTotals = Type.Object({
  days: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date' }),
      salesPaidCents: Type.Integer({ description: 'What paid sales credited that day (after fees)' }),
      withdrawalsCents: Type.Integer({ description: 'What completed withdrawals took that day' }),
    }),
  ),
});

/** An account's card installments by date (GET /api/receivables, and the panel's calendar). */
export const ReceivablesPage = Type.Object(
  {
    from: Type.String(),
    to: Type.String(),
    data: Type.Array(
      Type.Object({
        date: Type.String({ description: 'YYYY-MM-DD (São Paulo): when it reaches available' }),
        amount: Type.Integer({
          description: 'Cents due that day: every installment, settled or not (each says which)',
        }),
        installments: Type.Array(
          Type.Object({
            saleUuid: Type.String({ format: 'uuid' }),
            installment: Type.Integer(),
            installments: Type.Integer(),
            amount: Type.Integer({ description: 'Cents' }),
            settled: Type.Boolean({ description: 'Already moved to available' }),
          }),
        ),
      }),
    ),
  },
  {
    examples: [
      {
        from: '2026-11-25',
        to: '2027-02-23',
        data: [
          {
            date: '2026-12-25',
            amount: 3067,
            installments: [
              {
                saleUuid: '0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41',
                installment: 1,
                installments: 3,
                amount: 3067,
                settled: false,
              },
            ],
          },
        ],
      },
    ],
  },
);

export const ReceivablesQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'YYYY-MM-DD; today (São Paulo) when absent' })),
  to: Type.Optional(
    Type.String({ description: 'YYYY-MM-DD, at most 366 days after from; from + 90 when absent' }),
  ),
});
