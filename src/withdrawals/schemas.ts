import { Type } from 'typebox';
import type { ErrorCode } from '../platform/errors/app-error.js';
import { ListPage } from '../platform/http/common-schemas.js';
import { PIX_KEY_TYPES } from './pix-key.js';

const Reais = Type.String({ pattern: '^-?\\d+\\.\\d{2}$', description: 'Reais, two decimals' });
const Fees = Type.Object({ fixed: Reais, variable: Reais, total: Reais });

const withdrawalFields = {
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  amount: Reais,
  netAmount: Reais,
  pixKey: Type.String(),
  pixKeyType: Type.String({ enum: [...PIX_KEY_TYPES] }),
  status: Type.String({
    enum: ['PENDING', 'AWAITING_REVIEW', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'],
    description:
      "AWAITING_REVIEW: the account's payouts are held (or it is suspended); the withdrawal is kept, never sent, until an operator releases or cancels it",
  }),
  createdAt: Type.String({ format: 'date-time' }),
};

/** A realistic withdrawal, for the API document. */
const WITHDRAWAL_EXAMPLE = {
  id: 311,
  uuid: '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
  amount: '150.00',
  netAmount: '147.50',
  pixKey: '52998224725',
  pixKeyType: 'CPF',
  status: 'PENDING',
  createdAt: '2026-11-25T13:45:12.345Z',
  updatedAt: '2026-11-25T13:45:12.345Z',
  fees: { fixed: '1.00', variable: '1.50', total: '2.50' },
  approval: null,
};

/** Set when the withdrawal needed a second person's approval (null: it did not). */
export const Approval = Type.Union(
  [
    Type.Object({
      status: Type.Union([
        Type.Literal('awaiting'),
        Type.Literal('approved'),
        Type.Literal('declined'),
        Type.Literal('expired'),
      ]),
      requestedBy: Type.String({ description: "A user's e-mail, or api_key:<publicKey>" }),
      decidedBy: Type.Union([Type.String(), Type.Null()], { description: "The deciding user's e-mail" }),
      decidedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    }),
    Type.Null(),
  ],
  {
    description:
      'Approval by a second person (withdrawals at or above the account threshold); null: none needed',
  },
);

const RecipientId = Type.Optional(
  Type.String({
    format: 'uuid',
    description: "A recipient's withdrawal (split payments): the recipient's id; absent on the account's own",
  }),
);

/** Creation form: no updatedAt. Key order follows the API contract's table. */
export const WithdrawalCreated = Type.Object(
  { ...withdrawalFields, fees: Fees, approval: Approval, recipientId: RecipientId },
  { examples: [(({ updatedAt, ...created }) => created)(WITHDRAWAL_EXAMPLE)] },
);
export const WithdrawalLookup = Type.Object(
  {
    ...withdrawalFields,
    updatedAt: Type.String({ format: 'date-time' }),
    fees: Fees,
    approval: Approval,
    recipientId: RecipientId,
  },
  { examples: [WITHDRAWAL_EXAMPLE] },
);

/** A page of the panel's withdrawals list, newest first. */
export const WithdrawalPage = ListPage(WithdrawalLookup);

// amount is checked by the domain from the JSON text (no float rounding); the schema only admits the types.
export const CashoutBody = Type.Object(
  {
    amount: Type.Union([Type.Number(), Type.String({ maxLength: 64 })], {
      description:
        'Reais, at most two decimals; 100.00 to 100000.00: a JSON number, or a string holding a plain decimal ("150.00")',
    }),
    pixKey: Type.String({ maxLength: 1000, description: '8 to 77 characters, valid for its type' }),
    pixKeyType: Type.Optional(Type.String({ description: `${PIX_KEY_TYPES.join(', ')}; default CPF` })),
  },
  { examples: [{ amount: '150.00', pixKey: '52998224725', pixKeyType: 'CPF' }] },
);

/** The panel's fee preview: what a withdrawal of `amount` would be charged now (fees come out of it). */
export const FeePreview = Type.Object({
  amount: Reais,
  fees: Fees,
  netAmount: { ...Reais, description: 'What the PIX key receives: amount − fees.total' },
  debited: { ...Reais, description: 'What leaves the available balance: the amount itself' },
});
export const FeePreviewQuery = Type.Object({
  amount: Type.String({ maxLength: 64, description: 'Reais, at most two decimals (e.g. 150.00)' }),
});

/** A recipient's cashout: the account's cashout body, the PIX key defaulting to the recipient's own. */
export const RecipientCashoutBody = Type.Object(
  {
    amount: CashoutBody.properties.amount,
    pixKey: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: "8 to 77 characters, valid for its type; default the recipient's own key",
      }),
    ),
    pixKeyType: Type.Optional(
      Type.String({
        description: `${PIX_KEY_TYPES.join(', ')}; default CPF with a pixKey, else the recipient's own key's type`,
      }),
    ),
  },
  { examples: [{ amount: '150.00' }] },
);

export const IdParam = Type.Object({ id: Type.String({ description: 'Withdrawal uuid or numeric id' }) });

/** The codes creating a withdrawal answers, from the API and the panel alike (the routes' catalogues). */
export const CREATION_ERRORS: readonly ErrorCode[] = [
  'GENERAL_ERROR',
  'IDEMPOTENCY_KEY_IN_USE',
  'IDEMPOTENCY_KEY_REUSED',
  'INSUFFICIENT_BALANCE',
  'MAXIMUM_VALUE',
  'MINIMUM_VALUE',
  'TRANSFER_NOT_ALLOWED',
];
