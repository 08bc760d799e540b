import { Type } from 'typebox';
import { ListPage } from '../platform/http/common-schemas.js';

const Receivables = Type.Array(
  Type.Object({
    date: Type.String({ examples: ['2026-12-25'] }),
    amountCents: Type.Integer({ examples: [10000] }),
  }),
  { description: 'The installments taken, by the date each would have reached available' },
);

/** Either ask: checked by parseAsk (exactly one of the two), so that a bad one is a 400 in the route's family. */
export const AskBody = Type.Object(
  {
    amountCents: Type.Optional(
      Type.Unknown({
        description: 'Cents of receivables to bring forward (the earliest installments first)',
      }),
    ),
    upTo: Type.Optional(Type.Unknown({ description: 'Every installment due up to this date (YYYY-MM-DD)' })),
  },
  { description: 'Exactly one of amountCents or upTo' },
);

export const Simulation = Type.Object({
  grossCents: Type.Integer({ examples: [30000] }),
  feeCents: Type.Integer({ examples: [1794] }),
  netCents: Type.Integer({ examples: [28206] }),
  receivables: Receivables,
});

export const Anticipation = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.Union([
    Type.Literal('requested'),
    Type.Literal('approved'),
    Type.Literal('rejected'),
    Type.Literal('paid'),
  ]),
  grossCents: Type.Integer(),
  feeCents: Type.Integer(),
  netCents: Type.Integer(),
  monthlyPercent: Type.String({ description: 'The monthly rate it was priced at', examples: ['2.99'] }),
  receivables: Receivables,
  reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why it was rejected: receivables_unavailable (refunded, disputed or taken), or the operator’s',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  decidedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  paidAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const AnticipationPage = ListPage(Anticipation);

export const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
