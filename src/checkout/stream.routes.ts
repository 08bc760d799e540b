import { Type } from 'typebox';
import type { Db } from '../platform/db/db.js';
import { TransactionErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { mapCheckoutErrors } from './http.js';
import { saleOfLink, saleOfSession } from './payer-sale.js';
import { openPayerStream, type PayerStreamDeps } from './payer-stream.js';

const SaleId = Type.String({ description: 'The saleId the payment answered' });
const LinkSalePath = Type.Object({ slug: Type.String(), saleId: SaleId });
const SessionSalePath = Type.Object({ id: Type.String(), saleId: SaleId });
const errors = { 404: TransactionErrorBody, 429: TransactionErrorBody };

/**
 * The hosted page's live confirmation: Server-Sent Events of the one sale its payer started (by the sale's
 * unguessable id, under its own link or session), no credentials; counted by the per-address limit of the
 * payer's routes, and at most CHECKOUT_STREAMS_PER_IP open at once per address.
 */
export function registerStreamRoutes(app: Http, db: Db, deps: PayerStreamDeps, perIp: AuthHook | null): void {
  const limited = perIp ? { onRequest: perIp } : {};
  const config = { errorShape: 'transaction' as const, errors: ['NOT_FOUND', 'RATE_LIMITED'] as const };

  app.get(
    '/api/public/pay/:slug/sales/:saleId/events',
    {
      config,
      ...limited,
      schema: {
        tags: ['checkout'],
        summary:
          'Server-Sent Events of a sale paid through a payment link: `paid` (data: {redirectUrl}) once paid, or `expired`; then the stream ends',
        params: LinkSalePath,
        response: errors,
      },
    },
    async (request, reply) => {
      const { slug, saleId } = request.params;
      await openPayerStream(request, reply, deps, saleId, () =>
        mapCheckoutErrors(() => saleOfLink(db, slug, saleId)),
      );
    },
  );

  app.get(
    '/api/public/checkout/:id/sales/:saleId/events',
    {
      config,
      ...limited,
      schema: {
        tags: ['checkout'],
        summary:
          'Server-Sent Events of a checkout session’s sale: `paid` (data: {redirectUrl}, successUrl with session_id) once paid, or `expired`; then the stream ends',
        params: SessionSalePath,
        response: errors,
      },
    },
    async (request, reply) => {
      const { id, saleId } = request.params;
      await openPayerStream(request, reply, deps, saleId, () =>
        mapCheckoutErrors(() => saleOfSession(db, id, saleId)),
      );
    },
  );
}
