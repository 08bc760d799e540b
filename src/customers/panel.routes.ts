import { accountOf } from '../auth/index.js';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { decodeCursor, parseLimit } from '../platform/paging/pagination.js';
import { maskDocument } from '../platform/privacy/mask.js';
import type { Customers } from './customers.js';
import { CustomersPage, PageQuery } from './schemas.js';

/** The panel's Clientes page (session cookie): the account's customers and their saved cards. */
export async function customerPanelRoutes(
  app: Http,
  deps: { customers: Customers; requireSession: AuthHook },
): Promise<void> {
  app.get(
    '/api/panel/customers',
    {
      config: { errorShape: 'envelope' as const, permission: 'money.view' as const },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: "The account's customers with their saved cards, newest first",
        querystring: PageQuery,
        response: { 200: CustomersPage, 401: EnvelopeErrorBody, 403: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const page = await deps.customers.list(
        accountOf(request),
        request.query.cursor ? decodeCursor(request.query.cursor) : null,
        parseLimit(request.query.limit),
      );
      // the panel's lists show a document's last digits only, as its sales lists do
      return { ...page, data: page.data.map((c) => ({ ...c, document: maskDocument(c.document) ?? '' })) };
    },
  );
}
