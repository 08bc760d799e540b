import { merchantOf } from '../auth/index.js';
import { KeyForbiddenBody, TransactionErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, pageOf, parseLimit } from '../platform/paging/pagination.js';
import { type Recipients, recipientView } from './recipients.js';
import {
  Recipient,
  RecipientBalanceBody,
  RecipientBody,
  RecipientListQuery,
  RecipientPage,
  RecipientPath,
} from './schemas.js';

const security = [{ publicKey: [], privateKey: [] }];
const errors = {
  400: TransactionErrorBody,
  401: TransactionErrorBody,
  403: KeyForbiddenBody,
  500: TransactionErrorBody,
};

/** The platform's recipients (split payments), by API key; errors in shape D. */
export async function recipientRoutes(
  app: Http,
  deps: { recipients: Recipients; apiKey: AuthHook },
): Promise<void> {
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
      config: { errorShape: 'transaction', errors: ['NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary: 'One recipient (another account’s is not found)',
        tags: ['public'],
        security,
        params: RecipientPath,
        response: { 200: Recipient, ...errors, 404: TransactionErrorBody },
      },
    },
    async (request) =>
      recipientView(await deps.recipients.get(merchantOf(request).accountId, request.params.id)),
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
}
