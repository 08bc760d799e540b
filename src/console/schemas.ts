import { Type } from 'typebox';
import { FeePlan } from '../accounts/index.js';
import { Anticipation } from '../anticipations/index.js';

const MaybeText = Type.Union([Type.String(), Type.Null()]);
const Time = Type.String({ format: 'date-time' });
const MaybeTime = Type.Union([Time, Type.Null()]);
export const AccountStatusName = Type.Union([
  Type.Literal('pending_review'),
  Type.Literal('active'),
  Type.Literal('suspended'),
  Type.Literal('closed'),
]);

export const AccountProfile = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  status: AccountStatusName,
  statusReason: MaybeText,
  statusChangedAt: MaybeTime,
  legalName: MaybeText,
  document: MaybeText,
  phone: MaybeText,
  address: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
  payoutHold: Type.Boolean(),
  payoutHoldReason: MaybeText,
  cardPaymentsPaused: Type.Boolean({
    description:
      'Card payments paused by the refusal ratio (403 CARD_PAYMENTS_PAUSED): approving its risk review resumes them, or, the review rejected, POST …/card-payments-resume',
  }),
  createdAt: Time,
});

export const AccountsQuery = Type.Object({
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'Part of the name, the CPF/CNPJ or the e-mail' }),
  ),
  status: Type.Optional(Type.String()),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
export const AccountsPage = Type.Object({ data: Type.Array(AccountProfile), nextCursor: MaybeText });

export const AccountIdParam = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) });
export const DocumentParam = Type.Object({
  id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }),
  documentId: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }),
});

export const ReasonBody = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 500 })),
});
export const RequiredReasonBody = Type.Object({
  // something to read: a reason of spaces alone is none (the owner reads it by e-mail and in the panel)
  reason: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
});

export const ReviewView = Type.Object({
  id: Type.Integer(),
  kind: Type.Union([Type.Literal('onboarding'), Type.Literal('risk')]),
  accountId: Type.Integer(),
  accountName: Type.Optional(Type.String({ description: "The account's name (in the console's lists)" })),
  saleId: Type.Union([Type.Integer(), Type.Null()]),
  reason: Type.String(),
  status: Type.Union([Type.Literal('open'), Type.Literal('approved'), Type.Literal('rejected')]),
  createdAt: Time,
  decidedAt: MaybeTime,
  decidedBy: MaybeText,
  decisionReason: MaybeText,
});
export const ReviewsQuery = Type.Object({
  kind: Type.Optional(Type.String()),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
export const ReviewsPage = Type.Object({ data: Type.Array(ReviewView), nextCursor: MaybeText });

export const OpsWithdrawal = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  accountId: Type.Integer(),
  accountName: Type.Optional(Type.String({ description: "The account's name (in the console's lists)" })),
  amount: Type.String(),
  netAmount: Type.String(),
  pixKey: Type.String(),
  pixKeyType: Type.String(),
  status: Type.String(),
  createdAt: Time,
  updatedAt: Time,
});
export const WithdrawalsQuery = Type.Object({
  queue: Type.Optional(Type.String({ description: 'held (default), pending, failed or stuck' })),
  accountId: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$' })),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});
export const WithdrawalsPage = Type.Object({ data: Type.Array(OpsWithdrawal), nextCursor: MaybeText });
export const WithdrawalIdParam = AccountIdParam;

export const DisputesQuery = Type.Object({
  accountId: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$' })),
  open: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'true (default): only those still open',
    }),
  ),
});

export const DocumentMeta = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  contentType: Type.String(),
  sizeBytes: Type.Integer(),
  uploadedAt: Time,
});

export const AccountDetail = Type.Object({
  account: AccountProfile,
  balance: Type.Object({
    available: Type.Integer(),
    blocked: Type.Integer(),
    total: Type.Integer(),
    receivable: Type.Integer(),
  }),
  fees: Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()]), {
    description: "The account's own fees and switches, as `gateway accounts show` prints them",
  }),
  plan: Type.Union([FeePlan, Type.Null()], {
    description: 'The fee plan the account is on, whose prices apply instead of its own fees; null: none',
  }),
  documents: Type.Array(DocumentMeta),
  missingDocuments: Type.Array(Type.String()),
  reviews: Type.Array(ReviewView),
  sales: Type.Array(Type.Unknown(), { description: 'The newest 20 Sale objects' }),
  withdrawals: Type.Array(OpsWithdrawal, { description: 'The newest 20' }),
  disputes: Type.Array(Type.Unknown(), { description: 'Its disputes, open ones first by deadline' }),
  recipients: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      document: Type.String(),
      email: Type.String(),
      pixKey: Type.String(),
      pixKeyType: Type.String(),
      transferInterval: Type.String(),
      active: Type.Boolean({ description: 'false: it takes no new split; its money goes on' }),
      createdAt: Type.String(),
      balance: Type.Object({
        available: Type.Integer(),
        blocked: Type.Integer(),
        receivable: Type.Integer(),
        total: Type.Integer(),
      }),
    }),
    { description: 'Split payments: its recipients (newest 100) and their balances' },
  ),
});

export const ReportQuery = Type.Object({
  from: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'First day (America/Sao_Paulo)' }),
  to: Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    description: 'Last day, inclusive (at most 366 days)',
  }),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
  by: Type.Optional(Type.Union([Type.Literal('method'), Type.Literal('account')])),
  accountId: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$' })),
});
export const ReportRow = Type.Object({
  day: Type.String(),
  paymentMethod: Type.String(),
  accountId: Type.Optional(Type.Integer()),
  accountName: Type.Optional(Type.String()),
  salesCount: Type.Integer(),
  tpvCents: Type.Integer(),
  feeCents: Type.Integer(),
  takeRatePercent: Type.String({ description: 'feeCents / tpvCents, in per cent with two decimals' }),
});
export const Report = Type.Object({
  from: Type.String(),
  to: Type.String(),
  rows: Type.Array(ReportRow),
  totals: Type.Object({
    salesCount: Type.Integer(),
    tpvCents: Type.Integer(),
    feeCents: Type.Integer(),
    takeRatePercent: Type.String(),
  }),
  revenue: Type.Union(
    [
      Type.Object({
        salesCents: Type.Integer({
          description: "Sales' fees, as they were paid (the rows' feeCents together)",
        }),
        withdrawalsCents: Type.Integer({ description: "Withdrawals' fees, as they completed" }),
        anticipationsCents: Type.Integer({ description: "Anticipations' fees, as they were paid" }),
        refundsCents: Type.Integer({
          description: 'The part of sale fees that refunds gave back (zero or negative)',
        }),
        totalCents: Type.Integer({
          description: 'Everything the company earned in the period: the sum of the above',
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        "Every fee the company earned in the period, by source, from the ledger's revenue account (system:fees), per São Paulo day; null for one account's report (accountId)",
    },
  ),
});

/** An anticipation in the console's list: with whose it is, as the console's other lists. */
export const OpsAnticipation = Type.Object({
  ...Anticipation.properties,
  accountId: Type.Integer(),
  accountName: Type.Optional(Type.String({ description: "The account's name (in the console's lists)" })),
});

const Counted = Type.Integer({ minimum: 0 });
export const ReconciliationRun = Type.Object({
  id: Type.Integer(),
  schedule: Type.Union([Type.Literal('frequent'), Type.Literal('daily'), Type.Literal('manual')], {
    description:
      'frequent: every 10 minutes over two hours; daily: the previous São Paulo day; manual: asked for',
  }),
  from: Time,
  to: Type.String({ format: 'date-time', description: 'The end of the window, excluded' }),
  status: Type.Union(
    [Type.Literal('waiting'), Type.Literal('running'), Type.Literal('retrying'), Type.Literal('finished')],
    {
      description: 'retrying: its last try failed (lastError says why); a worker tries again within a minute',
    },
  ),
  requestedBy: Type.Union([Type.String(), Type.Null()], {
    description: "The operator's e-mail, or 'cli'; null for a scheduled run",
  }),
  createdAt: Time,
  finishedAt: MaybeTime,
  lastError: MaybeText,
  received: Counted,
  matched: Counted,
  creditedNow: Counted,
  refundedNow: Counted,
  discrepancies: Type.Integer({
    minimum: 0,
    description: 'The discrepancies it found, new ones and ones found before (so far, while it runs)',
  }),
});
export const ReconciliationRunsQuery = Type.Object({
  schedule: Type.Optional(
    Type.Union([Type.Literal('frequent'), Type.Literal('daily'), Type.Literal('manual')], {
      description: 'Only the runs of this schedule',
    }),
  ),
});
export const ReconciliationRuns = Type.Object({
  enabled: Type.Boolean({
    description:
      'Whether the gateway reconciles with a PSP (PIX_PROCESSOR=bcb); runs may be asked for only then',
  }),
  data: Type.Array(ReconciliationRun),
});
export const ReconciliationRunBody = Type.Object({
  from: Type.String({
    minLength: 1,
    maxLength: 40,
    description: 'ISO 8601 date or time; without an offset, São Paulo time (a bare date: its midnight)',
  }),
  to: Type.String({
    minLength: 1,
    maxLength: 40,
    description: 'The end of the window, excluded (at most 31 days on)',
  }),
});
export const Discrepancy = Type.Object({
  id: Type.Integer(),
  kind: Type.Union([
    Type.Literal('unknown_charge'),
    Type.Literal('amount_mismatch'),
    Type.Literal('missing_at_psp'),
    Type.Literal('duplicate_payment'),
    Type.Literal('closed_charge_paid'),
  ]),
  e2eid: Type.String({ description: "The Pix's end-to-end id, or the boleto payment's own reference" }),
  txid: MaybeText,
  amount: Type.Integer({ description: 'In cents' }),
  detail: Type.String(),
  foundAt: Time,
  resolvedAt: MaybeTime,
  resolution: Type.Union([Type.String(), Type.Null()], {
    description: "How it was resolved: by the gateway, or 'operator: ' and the operator's note",
  }),
  resolvedBy: Type.Union([Type.String(), Type.Null()], {
    description: "Who resolved it by hand: an operator's e-mail, or 'cli'; null when the gateway did",
  }),
});
export const DiscrepancyInList = Type.Object({
  ...Discrepancy.properties,
  saleId: Type.Union([Type.Integer(), Type.Null()], { description: 'The sale its txid names; null: none' }),
  accountId: Type.Union([Type.Integer(), Type.Null()], { description: "That sale's account" }),
  accountName: Type.Optional(Type.String()),
});
export const DiscrepanciesQuery = Type.Object({
  all: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
});
export const Discrepancies = Type.Object({ data: Type.Array(DiscrepancyInList) });
export const ResolveBody = Type.Object({
  note: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'What was done about it' }),
});
