import type { FastifyRequest } from 'fastify';
import {
  ACCOUNT_STATUSES,
  accountProfile,
  accountSettingsView,
  findFeePlan,
  getAccount,
  isAccountStatus,
  searchAccounts,
} from '../accounts/index.js';
import { opsDisputes } from '../disputes/index.js';
import { getBalance, receivableBalance } from '../ledger/index.js';
import { currentDocuments, documentContent, Onboarding } from '../onboarding/index.js';
import { operatorActor } from '../operators/index.js';
import type { Db } from '../platform/db/db.js';
import { notFound, validation } from '../platform/errors/app-error.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import { emptyBodyIsObject } from '../platform/http/json-body.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, encodeCursor, parseLimit } from '../platform/paging/pagination.js';
import { accountRecipients } from '../recipients/index.js';
import { accountReviews, reviewView } from '../reviews/index.js';
import { recentSaleBodies } from '../sales/index.js';
import type { WebhookService } from '../webhooks/index.js';
import { accountWithdrawals } from '../withdrawals/index.js';
import type { AccountAction, ConsoleActions } from './actions.js';
import {
  AccountDetail,
  AccountIdParam,
  AccountProfile,
  AccountsPage,
  AccountsQuery,
  DocumentParam,
  ReasonBody,
  RequiredReasonBody,
} from './schemas.js';
import { opsWithdrawalView } from './views.js';

export interface ConsoleRouteDeps {
  db: Db;
  actions: ConsoleActions;
  requireOperator: AuthHook;
  webhooks: WebhookService;
}

const A = { errorShape: 'envelope' as const };
const errors = {
  ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
};

/** What each account action needs: the role, whether a reason must be given, what it says. */
const ACTIONS: Record<
  AccountAction,
  { role: 'risk' | 'admin'; reason: boolean; summary: string; mails?: boolean }
> = {
  approve: {
    role: 'admin',
    reason: false,
    summary: 'Approve an account waiting for review (pending_review → active)',
  },
  reject: {
    role: 'admin',
    reason: true,
    summary: "Reject an account's onboarding (pending_review → closed)",
  },
  close: {
    role: 'admin',
    reason: true,
    summary:
      'Close an active or suspended account: its keys and sessions refused, its open charges cancelled, its subscriptions canceled (account_closed); its balances, receivables and accepted withdrawals go on',
  },
  suspend: {
    role: 'risk',
    reason: true,
    summary: 'Suspend an account: charges and cashouts refused, its withdrawals not yet sent wait for review',
  },
  reactivate: { role: 'risk', reason: false, summary: 'Reactivate a suspended account' },
  'payout-hold': {
    role: 'risk',
    reason: true,
    summary: "Hold an account's payouts: its withdrawals are accepted but wait in AWAITING_REVIEW",
  },
  'payout-release': {
    role: 'risk',
    reason: false,
    summary: "End a payout hold: the account's held withdrawals go",
  },
  'card-payments-resume': {
    role: 'risk',
    reason: false,
    mails: false,
    summary:
      'Resume card payments paused by the refusal ratio (403 CARD_PAYMENTS_PAUSED), once the merchant was talked to: the step after its risk review was rejected (approving the review resumes them too); 409 INVALID_STATUS when not paused',
  },
};

const idOf = (request: FastifyRequest) => Number((request.params as { id: string }).id);

/** The console's accounts: search, one account's whole picture, and what operators do to it. */
export async function consoleAccountRoutes(app: Http, deps: ConsoleRouteDeps): Promise<void> {
  app.get(
    '/api/ops/accounts',
    {
      config: { ...A, opsRole: 'support' },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'Accounts, newest first: search by name, CPF/CNPJ or e-mail; filter by status',
        querystring: AccountsQuery,
        response: { 200: AccountsPage, ...errors },
      },
    },
    async (request) => {
      const { q, status } = request.query;
      if (status && !isAccountStatus(status)) {
        throw validation(`status must be one of ${ACCOUNT_STATUSES.join(', ')}`);
      }
      const limit = parseLimit(request.query.limit);
      const before = request.query.cursor ? decodeCursor(request.query.cursor) : null;
      const rows = await searchAccounts(deps.db, {
        text: q ?? null,
        status: status && isAccountStatus(status) ? status : null,
        before,
        limit,
      });
      const kept = rows.slice(0, limit);
      return { data: kept, nextCursor: rows.length > limit ? encodeCursor(kept[kept.length - 1]!.id) : null };
    },
  );

  app.get(
    '/api/ops/accounts/:id',
    {
      config: { ...A, opsRole: 'support', errors: ['NOT_FOUND'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'One account: profile and documents, balance, fees, reviews, its newest sales and withdrawals, its disputes',
        params: AccountIdParam,
        response: { 200: AccountDetail, ...errors },
      },
    },
    async (request) => {
      const id = idOf(request);
      const account = await accountProfile(deps.db, id);
      if (!account) throw notFound('Account not found');
      const [row, balance, receivable, documents, state, reviews, sales, withdrawals, disputes, recipients] =
        await Promise.all([
          getAccount(deps.db, id),
          getBalance(deps.db, id),
          receivableBalance(deps.db, id),
          currentDocuments(deps.db, id),
          new Onboarding(deps.db).state(id),
          accountReviews(deps.db, id),
          recentSaleBodies(deps.db, id, 20),
          accountWithdrawals(deps.db, id, 20),
          opsDisputes(deps.db, { accountId: id, openOnly: false, limit: 50 }),
          accountRecipients(deps.db, id, 100),
        ]);
      return {
        account,
        balance: { ...balance, receivable },
        fees: row ? accountSettingsView(row) : {},
        plan: row?.fee_plan_id ? await findFeePlan(deps.db, Number(row.fee_plan_id)) : null,
        documents,
        missingDocuments: state.missing,
        reviews: reviews.map(reviewView),
        sales: sales.map((body) => JSON.parse(body) as unknown),
        withdrawals: withdrawals.map(opsWithdrawalView),
        disputes,
        recipients,
      };
    },
  );

  app.get(
    '/api/ops/accounts/:id/documents/:documentId',
    {
      config: { ...A, opsRole: 'support', errors: ['NOT_FOUND'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'An onboarding document of the account, as sent (PDF, PNG or JPEG)',
        params: DocumentParam,
        response: {
          200: {
            description: 'The file',
            content: { 'application/octet-stream': { schema: { type: 'string' } } },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const doc = await documentContent(
        deps.db,
        Number(request.params.id),
        Number(request.params.documentId),
      );
      if (!doc) throw notFound('Document not found');
      return reply
        .type(doc.contentType)
        .header('content-disposition', `inline; filename="${doc.kind}"`)
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; img-src 'self'; sandbox")
        .send(doc.content as unknown as string); // bytes, sent as they are
    },
  );

  for (const [action, rule] of Object.entries(ACTIONS) as [
    AccountAction,
    (typeof ACTIONS)[AccountAction],
  ][]) {
    app.post(
      `/api/ops/accounts/:id/${action}`,
      {
        config: {
          ...A,
          opsRole: rule.role,
          errors: [
            'NOT_FOUND',
            'INVALID_STATUS',
            ...(action === 'approve' ? ['FEE_PLAN_REQUIRED' as const] : []),
          ],
        },
        onRequest: deps.requireOperator,
        schema: {
          tags: ['console'],
          summary: `${rule.summary} (audited${rule.mails === false ? '' : '; the owner is e-mailed'})`,
          params: AccountIdParam,
          body: rule.reason ? RequiredReasonBody : ReasonBody,
          response: { 200: AccountProfile, ...errors, 409: EnvelopeErrorBody },
        },
        preValidation: emptyBodyIsObject,
      },
      async (request) => {
        const reason = (request.body as { reason?: string }).reason?.trim() || null;
        const profile = await deps.actions.onAccount(idOf(request), action, reason, operatorActor(request));
        if (!profile) throw notFound('Account not found');
        return profile;
      },
    );
  }
}
