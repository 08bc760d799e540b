import { Type } from 'typebox';

// The schema checks only types and sizes; the card's own rules (digits, check digit, expiry, CVV) are
// card-checks.ts's, whose messages never repeat a value.

export const CardTokenBody = Type.Object(
  {
    number: Type.String({
      minLength: 1,
      maxLength: 23,
      description: 'The card number (spaces and dashes allowed)',
    }),
    holderName: Type.String({ minLength: 1, maxLength: 100, description: "The holder's name as printed" }),
    expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
    expYear: Type.Integer({ minimum: 2000, maximum: 2200, description: 'Four digits' }),
    cvv: Type.String({ minLength: 1, maxLength: 4 }),
  },
  {
    additionalProperties: false,
    examples: [
      { number: '4111 1111 1111 1111', holderName: 'MARIA SILVA', expMonth: 12, expYear: 2030, cvv: '123' },
    ],
  },
);

export const CardToken = Type.Object(
  {
    token: Type.String({ description: 'Single use, valid 15 minutes' }),
    brand: Type.Union([
      Type.Literal('visa'),
      Type.Literal('mastercard'),
      Type.Literal('amex'),
      Type.Literal('elo'),
      Type.Literal('hipercard'),
    ]),
    lastFour: Type.String(),
    expMonth: Type.Integer(),
    expYear: Type.Integer(),
  },
  {
    additionalProperties: false,
    examples: [
      {
        token: 'tok_3q2Jr8LhQmV1x0aKcT9yWbPz5nDfE7gU',
        brand: 'visa',
        lastFour: '1111',
        expMonth: 12,
        expYear: 2030,
      },
    ],
  },
);

export const CaptureBody = Type.Object(
  {
    amountCents: Type.Optional(
      Type.Integer({ minimum: 1, description: 'At most the authorized amount; all of it when absent' }),
    ),
  },
  { additionalProperties: false, examples: [{ amountCents: 5000 }] },
);
