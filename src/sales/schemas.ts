import { Type } from 'typebox';
import { MAX_CHARGE_CENTS } from '../platform/money/money.js';
import { SALE_STATUSES } from './settlement/status-machine.js';

// `type: [x, 'null']` rather than anyOf: the response serializer handles it without trying each branch.
const NullableString = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
const NullableInteger = () => Type.Unsafe<number | null>({ type: ['integer', 'null'] });
const NullableObject = () =>
  Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true });

export const SaleStatusSchema = Type.Enum([...SALE_STATUSES]);

/** A sale's buyer and items as a request gives them (charges, and the sandbox's sales). */
export const CustomerIn = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ minLength: 3, maxLength: 320 }),
  document: Type.String({ minLength: 11, maxLength: 20 }),
  phone: Type.String({ minLength: 10, maxLength: 20 }),
});

export const ItemIn = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  unitPrice: Type.Integer({ minimum: 0, maximum: MAX_CHARGE_CENTS }),
  quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
  tangible: Type.Boolean(),
});

export const CustomerOut = Type.Object({
  name: Type.String(),
  email: Type.String(),
  document: Type.String(),
  phone: Type.String(),
});

/** The spec's Sale object, in its table order; idRec/contrato only on PIX_AUTOMATICO sales. */
export const Sale = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  status: Type.String(),
  amount: Type.Integer(),
  netAmount: Type.Integer(),
  systemFee: Type.Integer(),
  reserveAmount: Type.Integer(),
  paymentMethod: Type.String(),
  date: Type.String({ format: 'date-time' }),
  completedAt: NullableString({ format: 'date-time' }),
  customer: CustomerOut,
  items: Type.Array(
    Type.Object({
      id: Type.Integer(),
      title: Type.String(),
      unitPrice: Type.Integer(),
      quantity: Type.Integer(),
      tangible: Type.Boolean(),
    }),
  ),
  pixKey: NullableString(),
  cardLastFour: NullableString(),
  cardBrand: NullableString(),
  boletoCode: NullableString(),
  externalTransactionId: Type.String(),
  installments: NullableInteger(),
  shipping: NullableObject(),
  metadata: Type.Record(Type.String(), Type.String(), {
    description: "The charge's metadata as given; {} when none",
  }),
  expiresAt: NullableString({
    format: 'date-time',
    description: 'When an unpaid charge expires; null for other sales',
  }),
  idRec: Type.Optional(Type.String()),
  contrato: Type.Optional(Type.String()),
});

/** A page of the panel's sales list, newest first. */
export const SalesPage = Type.Object({
  data: Type.Array(Sale),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

// Any text: the handler answers every malformed id with the same documented 400.
export const IdPath = Type.Object({ id: Type.String() });
