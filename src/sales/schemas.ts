import { Type } from 'typebox';
import { SALE_STATUSES } from './status-machine.js';

export const ShapeA = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});
export const ShapeB = Type.Object({ message: Type.String(), code: Type.String() });
export const ShapeD = Type.Object({ message: Type.String(), error: Type.String() });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const SaleStatusSchema = Type.Union(SALE_STATUSES.map((s) => Type.Literal(s)));

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
  completedAt: Nullable(Type.String({ format: 'date-time' })),
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
  pixKey: Nullable(Type.String()),
  cardLastFour: Nullable(Type.String()),
  cardBrand: Nullable(Type.String()),
  boletoCode: Nullable(Type.String()),
  externalTransactionId: Type.String(),
  installments: Nullable(Type.Integer()),
  shipping: Nullable(Type.Object({}, { additionalProperties: true })),
  idRec: Type.Optional(Type.String()),
  contrato: Type.Optional(Type.String()),
});

export const IdPath = Type.Object({ id: Type.String({ maxLength: 100 }) });
