import { type TSchema, Type } from 'typebox';
import { EnvelopeErrorBody, errorAnswers, IpAccessErrorBody } from '../platform/http/error-schemas.js';
import { MAX_CHARGE_CENTS } from '../platform/money/money.js';
import {
  ChargeBody,
  CustomerIn,
  CustomerOut,
  ItemIn,
  PAYMENT_METHODS,
  SaleStatusSchema,
} from '../sales/index.js';

/** The errors of the sandbox's API-key routes: shape A for `statuses`, and a 403 in shape B too (the key's address). */
export function sandboxErrors(statuses: readonly number[]): Record<number, TSchema> {
  return {
    ...errorAnswers(EnvelopeErrorBody, statuses),
    403: Type.Union([IpAccessErrorBody, EnvelopeErrorBody]),
  };
}

export const SandboxSaleBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: MAX_CHARGE_CENTS }),
  paymentMethod: Type.Union(
    PAYMENT_METHODS.filter((m) => m !== 'PIX_AUTOMATICO').map((m) => Type.Literal(m)), // recurring: own route
  ),
  customer: CustomerIn,
  items: Type.Array(ItemIn, { minItems: 1, maxItems: 100 }),
  shipping: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
  postbackUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
  cartId: Type.Optional(
    Type.Union([
      Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
      Type.String({ minLength: 1, maxLength: 36 }),
    ]),
  ),
  card: Type.Optional(
    Type.Object({
      brand: Type.String({ minLength: 1, maxLength: 20 }),
      lastFour: Type.String({ pattern: '^[0-9]{4}$' }),
    }),
  ),
  // admitted as any charge's (the one admission): checked the same, carried by the sale
  split: ChargeBody.properties.split,
});

export const StatusBody = Type.Object({ status: SaleStatusSchema });

export const RecurrenceBody = Type.Object({
  contrato: Type.String({ minLength: 1, maxLength: 35, pattern: '^[\\x21-\\x7e]+$' }),
  journey: Type.Integer({ minimum: 1, maximum: 4 }),
  amount: Type.Integer({ minimum: 1, maximum: MAX_CHARGE_CENTS }),
  dataInicial: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }),
  customer: CustomerIn,
  postbackUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
});

export const CartBody = Type.Object({
  customer: CustomerIn,
  items: Type.Array(ItemIn, { minItems: 1, maxItems: 100 }),
});

export const Cart = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  userId: Type.Integer(),
  status: Type.String(),
  customer: CustomerOut,
  items: Type.Array(ItemIn),
  amount: Type.Integer(),
  saleId: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const IdRecPath = Type.Object({ idRec: Type.String({ minLength: 1, maxLength: 64 }) });
