import { Type } from 'typebox';
import { withdrawalFee } from '../accounts/index.js';
import { userActor } from '../audit/index.js';
import type { SessionService } from '../auth/index.js';
import { accountOf, confirmationRefusal, sessionOf } from '../auth/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { unauthorized, validation } from '../platform/errors/app-error.js';
import { PageParams } from '../platform/http/common-schemas.js';
import { type CsvColumn, reais, sendCsv } from '../platform/http/csv.js';
import {
  BusinessRuleErrorBody,
  EnvelopeErrorBody,
  IpAccessErrorBody,
  TransactionErrorBody,
} from '../platform/http/error-schemas.js';
import { HttpError } from '../platform/http/errors.js';
import { IdempotencyHeaders, parseIdempotencyKey } from '../platform/http/idempotency-key.js';
import { keepRawJson } from '../platform/http/json-body.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { isUuid, parsePublicId } from '../platform/ids/public-ids.js';
import { pageOf, parsePage } from '../platform/paging/pagination.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { parseWithdrawalAmount } from './amount.js';
import type { WithdrawalCreator } from './creation/creator.js';
import type { WithdrawalRow } from './data.js';
import { amountFees } from './fees.js';
import { ownedWithdrawal } from './lookup.js';
import { allWithdrawals, listWithdrawals, type WithdrawalFilters } from './panel.data.js';
import { parseWithdrawalRequest } from './request.js';
import {
  CashoutBody,
  CREATION_ERRORS,
  FeePreview,
  FeePreviewQuery,
  IdParam,
  WithdrawalCreated,
  WithdrawalLookup,
  WithdrawalPage,
} from './schemas.js';
import { creationView, feePreviewView, lookupView } from './views.js';

const STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'];
const ListQuery = Type.Object({
  status: Type.Optional(Type.String({ description: STATUSES.join(', ') })),
  from: Type.Optional(Type.String({ description: 'Created at or after (ISO 8601)' })),
  to: Type.Optional(
    Type.String({
      description:
        'Created before this date-time, or on or before this date (a bare date is a whole day, São Paulo time; ISO 8601)',
    }),
  ),
  ...PageParams,
  approval: Type.Optional(
    Type.String({ description: 'awaiting: only withdrawals waiting for approval (any other value: 400)' }),
  ),
  recipientId: Type.Optional(
    Type.String({
      description:
        "Only this recipient's withdrawals (split payments); without it, the account's own (the approval queue shows both)",
    }),
  ),
});
const PanelCashoutBody = Type.Object({
  ...CashoutBody.properties,
  password: Type.Optional(
    Type.String({ maxLength: 200, description: 'The panel password, confirming the withdrawal' }),
  ),
  totpCode: Type.Optional(
    Type.String({ maxLength: 16, description: 'The two-factor code instead of the password, when it is on' }),
  ),
});

function filters(q: Record<string, string | undefined>): WithdrawalFilters {
  if (q.status && !STATUSES.includes(q.status))
    throw validation(`status must be one of ${STATUSES.join(', ')}`);
  if (q.approval && q.approval !== 'awaiting') throw validation('approval must be awaiting');
  if (q.recipientId && !isUuid(q.recipientId)) throw validation('recipientId must be a recipient id');
  return {
    ...parsePage(q),
    status: q.status || null,
    awaitingApproval: q.approval === 'awaiting',
    recipientUuid: q.recipientId ? q.recipientId.toLowerCase() : null,
  };
}

/** The export is read by people: statuses and key types in words, as the panel shows them. */
const STATUS_WORDS: Record<WithdrawalRow['status'], string> = {
  PENDING: 'Pendente',
  AWAITING_REVIEW: 'Em análise',
  PROCESSING: 'Em processamento',
  COMPLETED: 'Concluído',
  FAILED: 'Recusado',
  CANCELLED: 'Cancelado',
};
const KEY_TYPE_WORDS: Record<WithdrawalRow['pix_key_type'], string> = {
  CPF: 'CPF',
  CNPJ: 'CNPJ',
  EMAIL: 'E-mail',
  PHONE: 'Telefone',
  RANDOM: 'Chave aleatória',
};
const APPROVAL_WORDS: Record<NonNullable<WithdrawalRow['approval_status']>, string> = {
  awaiting: 'Aguardando aprovação',
  approved: 'Aprovado',
  declined: 'Recusado',
  expired: 'Expirado',
};

const CSV: CsvColumn<WithdrawalRow>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'uuid', value: (r) => r.uuid },
  { header: 'criado_em', value: (r) => toSaoPaulo(r.created_at) },
  { header: 'status', value: (r) => STATUS_WORDS[r.status] },
  { header: 'valor', value: (r) => reais(r.amount) },
  { header: 'taxas', value: (r) => reais(r.fee_fixed + r.fee_variable) },
  { header: 'valor_liquido', value: (r) => reais(r.net_amount) },
  { header: 'chave_pix', value: (r) => r.pix_key },
  { header: 'tipo_chave', value: (r) => KEY_TYPE_WORDS[r.pix_key_type] },
  { header: 'aprovacao', value: (r) => (r.approval_status ? APPROVAL_WORDS[r.approval_status] : '') },
  { header: 'atualizado_em', value: (r) => toSaoPaulo(r.updated_at) },
];

export interface WithdrawalPanelDeps {
  db: Db;
  /** The lists and exports, which a read replica may serve. */
  reads: Queryable;
  creator: WithdrawalCreator;
  sessions: SessionService;
  requireSession: AuthHook;
}

/** The panel's withdrawals: list, detail, CSV export, and a withdrawal confirmed with the password. */
export async function withdrawalPanelRoutes(app: Http, deps: WithdrawalPanelDeps): Promise<void> {
  keepRawJson(app);
  const common = {
    config: { errorShape: 'envelope' as const, permission: 'money.view' as const },
    onRequest: deps.requireSession,
  };

  app.get(
    '/api/withdrawals',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: 'Withdrawals, newest first',
        querystring: ListQuery,
        response: { 200: WithdrawalPage, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const f = filters(request.query);
      const { rows, nextCursor } = pageOf(await listWithdrawals(deps.reads, accountOf(request), f), f.limit);
      return { data: rows.map(lookupView), nextCursor };
    },
  );

  app.get(
    '/api/withdrawals/export.csv',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: 'Every withdrawal matching the filters, as CSV',
        querystring: Type.Omit(ListQuery, ['limit', 'cursor']),
        response: { 200: Type.String(), 400: EnvelopeErrorBody, 401: EnvelopeErrorBody },
      },
    },
    async (request, reply) =>
      sendCsv(
        reply,
        'saques.csv',
        allWithdrawals(deps.reads, accountOf(request), filters(request.query)),
        CSV,
      ),
  );

  app.get(
    '/api/withdrawals/fee-preview',
    {
      ...common,
      config: { ...common.config, errors: ['GENERAL_ERROR', 'MAXIMUM_VALUE', 'MINIMUM_VALUE'] },
      schema: {
        tags: ['panel'],
        summary:
          'What a withdrawal of this amount would be charged now: the creation’s own amount rules and fees',
        querystring: FeePreviewQuery,
        response: {
          200: FeePreview,
          400: EnvelopeErrorBody,
          401: EnvelopeErrorBody,
          422: BusinessRuleErrorBody,
        },
      },
    },
    async (request) => {
      const parsed = parseWithdrawalAmount(request.query.amount, undefined);
      if (!parsed.ok) throw validation(parsed.reason);
      const rates = await withdrawalFee(deps.db, accountOf(request));
      if (!rates) throw unauthorized('Unknown account');
      const fees = amountFees(parsed.cents, rates.fixed, rates.percentE4);
      return feePreviewView(parsed.cents, fees);
    },
  );

  app.get(
    '/api/withdrawals/:id',
    {
      ...common,
      config: { ...common.config, errors: ['NOT_FOUND'] },
      schema: {
        tags: ['panel'],
        summary: 'One withdrawal (uuid or numeric id)',
        params: IdParam,
        response: { 200: WithdrawalLookup, 401: EnvelopeErrorBody, 404: EnvelopeErrorBody },
      },
    },
    async (request) =>
      lookupView(await ownedWithdrawal(deps.db, accountOf(request), parsePublicId(request.params.id))),
  );

  app.post(
    '/api/withdrawals',
    {
      // decisions.md: the API cashout's bodies (business-rule, transaction for the rest), but a wrong confirmation is in the envelope body
      config: {
        errorShape: 'transaction' as const,
        permission: 'withdrawals.create' as const,
        moves: 'cashout' as const,
        errors: [...CREATION_ERRORS, 'RATE_LIMITED', 'TOTP_REQUIRED'],
      },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary:
          'A PIX withdrawal from the panel, confirmed with the password (same rules as the API cashout)',
        headers: IdempotencyHeaders,
        body: PanelCashoutBody,
        response: {
          201: WithdrawalCreated,
          400: TransactionErrorBody,
          401: Type.Union([EnvelopeErrorBody, TransactionErrorBody]),
          403: Type.Union([BusinessRuleErrorBody, IpAccessErrorBody, EnvelopeErrorBody]),
          409: BusinessRuleErrorBody,
          422: BusinessRuleErrorBody,
          // too many wrong confirmations (docs/security.md): counted per account like failed logins
          429: TransactionErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { user, accountId } = sessionOf(request);
      const { password, totpCode } = request.body;
      if (!(await deps.sessions.confirm({ id: user.id, accountId }, { password, totpCode }))) {
        const message = confirmationRefusal(user.totpEnabled, { password, totpCode });
        // decisions.md: a wrong confirmation is 401 in the envelope body, where this route's other 401s are in the transaction body
        throw new HttpError('UNAUTHORIZED', message, 'envelope');
      }
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const req = parseWithdrawalRequest(request.body, request.rawBody?.toString('utf8'));
      // the API cashout's own path: the same batcher, rules, fees, idempotency and notifications
      const { withdrawal, replayed } = await deps.creator.create(
        accountOf(request),
        req,
        key,
        userActor(request, user),
        user.email,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(creationView(withdrawal));
    },
  );
}
