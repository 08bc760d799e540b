import { Type } from 'typebox';

/** Balances in cents (the balance object of /api/public/balance). */
export const Balance = Type.Object({
  available: Type.Integer(),
  blocked: Type.Integer(),
  total: Type.Integer(),
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
  availableAfter: Type.Integer({ description: 'available balance right after this line, cents' }),
  blockedAfter: Type.Integer({ description: 'blocked balance right after this line, cents' }),
});

export const StatementPage = Type.Object({
  data: Type.Array(StatementLine),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

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
