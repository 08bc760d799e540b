import type { FastifyRequest } from 'fastify';
import { apiKeyActor, userActor } from '../audit/index.js';
import { apiKeyOrSession, merchantOf, requestAccount, sessionOf } from '../auth/index.js';
import { recipientReceivables, Statement, StatementPage } from '../ledger/index.js';
import type { Queryable } from '../platform/db/db.js';
import {
  EITHER_DOOR_ROUTE,
  eitherDoorErrors,
  KeyForbiddenBody,
  TransactionErrorBody,
} from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, pageOf, parseLimit, parsePage } from '../platform/paging/pagination.js';
import { listWithdrawals, lookupView, WithdrawalPage } from '../withdrawals/index.js';
import { type Recipients, recipientView } from './recipients.js';
import {
  Recipient,
  RecipientBalanceBody,
  RecipientBody,
  RecipientCursorQuery,
  RecipientListQuery,
  RecipientPage,
  RecipientPatchBody,
  RecipientPath,
  RecipientReceivablesBody,
  RecipientReceivablesQuery,
  RecipientStatementQuery,
} from './schemas.js';

const security = [{ publicKey: [], privateKey: [] }];
const errors = {
  400: TransactionErrorBody,
  401: TransactionErrorBody,
  403: KeyForbiddenBody,
  500: TransactionErrorBody,
};

const doorErrors = eitherDoorErrors([400, 401, 404, 500]);

/** Who changes a recipient: the API key, or the panel user (either door). */
const actorOf = (request: FastifyRequest) =>
  request.merchant ? apiKeyActor(request, merchantOf(request)) : userActor(request, sessionOf(request).user);

export interface RecipientRouteDeps {
  recipients: Recipients;
  apiKey: AuthHook;
  requireSession: AuthHook;
  /** The lists (withdrawals, receivables, statement), which a read replica may serve. */
  reads: Queryable;
  /** Signs the statement's cursors (as the account's statement's). */
  cursorKey: Buffer;
}

/**
 * The platform's recipients (split payments), by API key; errors in shape D. A recipient's change, receivables,
 * withdrawals and statement open by either door: the API key (shape D) or the panel session (shape A), one
 * handler for the integrator and the panel's Recebedores.
 */
export async function recipientRoutes(app: Http, deps: RecipientRouteDeps): Promise<void> {
  const door = apiKeyOrSession(deps.apiKey, deps.requireSession);
  const statement = new Statement(deps.cursorKey);

  app.post(
    '/api/recipients',
    {
      config: { errorShape: 'transaction' },
      onRequest: deps.apiKey,
      schema: {
        summary: 'Create a recipient of split payments under this (platform) account',
        tags: ['public'],
        security,
        body: RecipientBody,
        response: { 201: Recipient, ...errors },
      },
    },
    async (request, reply) => {
      const view = await deps.recipients.create(merchantOf(request).accountId, request.body);
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/api/recipients',
    {
      config: { errorShape: 'transaction' },
      onRequest: deps.apiKey,
      schema: {
        summary: "The account's recipients, newest first (cursor pages)",
        tags: ['public'],
        security,
        querystring: RecipientListQuery,
        response: { 200: RecipientPage, ...errors },
      },
    },
    async (request) => {
      const limit = parseLimit(request.query.limit);
      const before = request.query.cursor === undefined ? null : decodeCursor(request.query.cursor);
      const rows = await deps.recipients.list(merchantOf(request).accountId, before, limit + 1);
      const page = pageOf(rows, limit);
      return { data: page.rows.map(recipientView), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/api/recipients/:id',
    {
      config: { errorShape: 'transaction', permission: 'money.view', errors: ['FORBIDDEN', 'NOT_FOUND'] },
      onRequest: door,
      schema: {
        ...EITHER_DOOR_ROUTE,
        summary: 'One recipient (another account’s is not found)',
        params: RecipientPath,
        response: { 200: Recipient, ...doorErrors },
      },
    },
    async (request) => recipientView(await deps.recipients.get(requestAccount(request), request.params.id)),
  );

  app.patch(
    '/api/recipients/:id',
    {
      config: {
        errorShape: 'transaction',
        permission: 'withdrawals.create',
        errors: ['FORBIDDEN', 'NOT_FOUND'],
      },
      onRequest: door,
      schema: {
        ...EITHER_DOOR_ROUTE,
        summary:
          'Change a recipient: name, email, pixKey/pixKeyType, transferInterval, active (the document never changes)',
        description:
          'Only the fields given change. An inactive recipient (active: false) takes no new split; its balance, receivables and payouts go on. API keys (scope full; errors in shape D) or the panel session (shape A).',
        params: RecipientPath,
        body: RecipientPatchBody,
        response: { 200: Recipient, ...doorErrors },
      },
    },
    async (request) =>
      deps.recipients.update(requestAccount(request), request.params.id, request.body, actorOf(request)),
  );

  app.get(
    '/api/recipients/:id/balance',
    {
      config: { errorShape: 'transaction', errors: ['NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary:
          "A recipient's balance: available, blocked, receivable (card installments) and total, in cents",
        tags: ['public'],
        security,
        params: RecipientPath,
        response: { 200: RecipientBalanceBody, ...errors, 404: TransactionErrorBody },
      },
    },
    async (request) => deps.recipients.balance(merchantOf(request).accountId, request.params.id),
  );

  app.get(
    '/api/recipients/:id/receivables',
    {
      config: { errorShape: 'transaction', permission: 'money.view', errors: ['FORBIDDEN', 'NOT_FOUND'] },
      onRequest: door,
      schema: {
        ...EITHER_DOOR_ROUTE,
        summary:
          "A recipient's card installments not yet settled, by the date each reaches available (from today and 90 days on by default)",
        params: RecipientPath,
        querystring: RecipientReceivablesQuery,
        response: { 200: RecipientReceivablesBody, ...doorErrors },
      },
    },
    async (request) => {
      const row = await deps.recipients.get(requestAccount(request), request.params.id);
      return recipientReceivables(deps.reads, row.id, request.query);
    },
  );

  app.get(
    '/api/recipients/:id/withdrawals',
    {
      config: { errorShape: 'transaction', permission: 'money.view', errors: ['FORBIDDEN', 'NOT_FOUND'] },
      onRequest: door,
      schema: {
        ...EITHER_DOOR_ROUTE,
        summary: "A recipient's withdrawals (the Withdrawal objects), newest first (cursor pages)",
        params: RecipientPath,
        querystring: RecipientCursorQuery,
        response: { 200: WithdrawalPage, ...doorErrors },
      },
    },
    async (request) => {
      const accountId = requestAccount(request);
      const row = await deps.recipients.get(accountId, request.params.id);
      const limit = parseLimit(request.query.limit);
      const before = request.query.cursor === undefined ? null : decodeCursor(request.query.cursor);
      const rows = await listWithdrawals(deps.reads, accountId, {
        limit,
        before,
        from: null,
        to: null,
        status: null,
        recipientUuid: row.uuid,
      });
      const page = pageOf(rows, limit);
      return { data: page.rows.map(lookupView), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/api/recipients/:id/statement',
    {
      config: { errorShape: 'transaction', permission: 'money.view', errors: ['FORBIDDEN', 'NOT_FOUND'] },
      onRequest: door,
      schema: {
        ...EITHER_DOOR_ROUTE,
        summary:
          "A recipient's ledger lines, newest first, with its balances right after each (the account's statement, for the recipient)",
        params: RecipientPath,
        querystring: RecipientStatementQuery,
        response: { 200: StatementPage, ...doorErrors },
      },
    },
    async (request) => {
      const row = await deps.recipients.get(requestAccount(request), request.params.id);
      const { limit, from, to } = parsePage({ ...request.query, cursor: undefined });
      return statement.page(
        deps.reads,
        { recipientId: row.id },
        {
          limit,
          from,
          to,
          cursor: request.query.cursor,
        },
      );
    },
  );
}
