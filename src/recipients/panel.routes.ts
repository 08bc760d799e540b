import { accountOf } from '../auth/index.js';
import { recipientBalances } from '../ledger/index.js';
import type { Queryable } from '../platform/db/db.js';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, pageOf, parseLimit } from '../platform/paging/pagination.js';
import { maskDocument } from '../platform/privacy/mask.js';
import { listRecipients } from './data.js';
import { lastPayoutPeriods } from './payouts.data.js';
import { recipientView } from './recipients.js';
import { PanelRecipientPage, RecipientListQuery } from './schemas.js';

/**
 * The panel's Recebedores: the account's recipients with their balances and latest automatic payout (session;
 * errors in the envelope). A recipient's sales and withdrawals are the panel's sales and withdrawals lists
 * filtered by `recipientId`. Documents are masked (the API's recipient routes, for integrators, show them whole).
 */
export async function recipientPanelRoutes(
  app: Http,
  deps: { reads: Queryable; requireSession: AuthHook },
): Promise<void> {
  app.get(
    '/api/panel/recipients',
    {
      config: { errorShape: 'envelope', permission: 'money.view' },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: "The account's recipients (split payments), newest first, each with its balance",
        querystring: RecipientListQuery,
        response: { 200: PanelRecipientPage, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const limit = parseLimit(request.query.limit);
      const before = request.query.cursor === undefined ? null : decodeCursor(request.query.cursor);
      const rows = await listRecipients(deps.reads, accountOf(request), before, limit + 1);
      const page = pageOf(rows, limit);
      const balances = await recipientBalances(
        deps.reads,
        page.rows.map((r) => r.id),
      );
      const payouts = await lastPayoutPeriods(
        deps.reads,
        page.rows.map((r) => r.id),
      );
      return {
        data: page.rows.map((r) => ({
          ...masked(recipientView(r)),
          balance: balances.get(r.id)!,
          lastAutomaticPayout: payouts.get(r.id) ?? null,
        })),
        nextCursor: page.nextCursor,
      };
    },
  );
}

/** A list shows documents as the panel's other lists do: the last digits only (a CPF or CNPJ key too). */
function masked<V extends { document: string; pixKey: string; pixKeyType: string }>(view: V): V {
  const isDocument = view.pixKeyType === 'CPF' || view.pixKeyType === 'CNPJ';
  return {
    ...view,
    document: maskDocument(view.document) ?? '',
    pixKey: isDocument ? (maskDocument(view.pixKey) ?? '') : view.pixKey,
  };
}
