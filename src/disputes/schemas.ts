import { Type } from 'typebox';
import { ListPage } from '../platform/http/common-schemas.js';

const Uuid = (example: string) => Type.String({ format: 'uuid', examples: [example] });
const Iso = (example: string) => Type.String({ format: 'date-time', examples: [example] });

export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost', 'accepted'] as const;

export const Dispute = Type.Object(
  {
    id: Uuid('5f0c2b8e-7d14-4f3a-9b6e-1c2d3e4f5a6b'),
    saleId: Uuid('0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41'),
    kind: Type.Union([Type.Literal('chargeback'), Type.Literal('med')]),
    status: Type.Union([
      Type.Literal('needs_response'),
      Type.Literal('under_review'),
      Type.Literal('won'),
      Type.Literal('lost'),
      Type.Literal('accepted'),
    ]),
    amountCents: Type.Integer({ examples: [10000] }),
    reason: Type.Union([Type.String({ examples: ['Pagador relata golpe'] }), Type.Null()]),
    respondBy: Iso('2026-12-02T13:45:12.345Z'),
    evidence: Type.Array(
      Type.Object({
        id: Uuid('8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d'),
        name: Type.String({ examples: ['comprovante-entrega.pdf'] }),
        contentType: Type.Union([
          Type.Literal('application/pdf'),
          Type.Literal('image/png'),
          Type.Literal('image/jpeg'),
        ]),
        size: Type.Integer({ examples: [48213] }),
      }),
    ),
    responseText: Type.Union(
      [Type.String({ examples: ['Entregue em 20/11, assinado pelo comprador.'] }), Type.Null()],
      {
        description:
          "The merchant's answer as sent with the evidence (POST …/evidence `text`); null before one",
      },
    ),
    createdAt: Iso('2026-11-25T13:45:12.345Z'),
    closedAt: Type.Union([Iso('2026-11-28T10:02:41.118Z'), Type.Null()]),
  },
  { description: 'A card chargeback or a Pix mediation (MED) of a paid sale' },
);

export const DisputePage = ListPage(Dispute);

export const DisputeListQuery = Type.Object({
  status: Type.Optional(
    Type.String({ description: DISPUTE_STATUSES.join(', '), examples: ['needs_response'] }),
  ),
  saleId: Type.Optional(
    Type.String({
      description: "Only this sale's disputes (its uuid)",
      examples: ['0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41'],
    }),
  ),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.String({ description: '1..100, default 20' })),
});

export const OpenDisputeBody = Type.Object(
  {
    kind: Type.Union([Type.Literal('chargeback'), Type.Literal('med')]),
    amountCents: Type.Optional(Type.Integer({ minimum: 1, description: "Default: the sale's amount" })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  {
    additionalProperties: false,
    examples: [{ kind: 'med', amountCents: 10000, reason: 'Pagador relata golpe' }],
  },
);

export const OutcomeBody = Type.Object(
  { outcome: Type.Union([Type.Literal('won'), Type.Literal('lost')]) },
  { additionalProperties: false, examples: [{ outcome: 'won' }] },
);
