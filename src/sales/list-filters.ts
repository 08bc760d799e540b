import { Type } from 'typebox';
import { validation } from '../platform/errors/app-error.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { parsePage } from '../platform/paging/pagination.js';
import type { SaleFilters } from './panel.data.js';
import { SALE_STATUSES } from './settlement/status-machine.js';

/** The filters of a list of sales (the panel's, and GET /api/transactions). */
export const PAYMENT_METHODS = ['PIX', 'CREDIT_CARD', 'DEBIT_CARD', 'BOLETO', 'TRANSFER', 'PIX_AUTOMATICO'];

export const SalesQuery = Type.Object({
  status: Type.Optional(Type.String({ description: `One of ${SALE_STATUSES.join(', ')}` })),
  paymentMethod: Type.Optional(Type.String({ description: `One of ${PAYMENT_METHODS.join(', ')}` })),
  from: Type.Optional(
    Type.String({ description: 'Created at or after (ISO 8601; a bare date is 00:00 in São Paulo)' }),
  ),
  to: Type.Optional(
    Type.String({
      description:
        'Created before this date-time, or on or before this date (a bare date is a whole day, São Paulo time; ISO 8601)',
    }),
  ),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'uuid, numeric id, customer name, email or document' }),
  ),
  paymentLinkId: Type.Optional(
    Type.String({ description: 'Only the sales made through this payment link (its id)' }),
  ),
  subscriptionId: Type.Optional(
    Type.String({ description: "Only a subscription's sales, one per try at a period (its id)" }),
  ),
  limit: Type.Optional(Type.String({ description: '1..100, default 20' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
});

/** The list's filters from its query, each checked (400 on a bad one). */
export function filters(q: Record<string, string | undefined>): SaleFilters {
  if (q.status && !(SALE_STATUSES as readonly string[]).includes(q.status)) {
    throw validation(`status must be one of ${SALE_STATUSES.join(', ')}`);
  }
  if (q.paymentMethod && !PAYMENT_METHODS.includes(q.paymentMethod)) {
    throw validation(`paymentMethod must be one of ${PAYMENT_METHODS.join(', ')}`);
  }
  return {
    ...parsePage(q),
    status: q.status || null,
    paymentMethod: q.paymentMethod || null,
    q: q.q || null,
    paymentLinkId: uuidOf(q.paymentLinkId, 'paymentLinkId must be a payment link id (a uuid)'),
    subscriptionId: uuidOf(q.subscriptionId, 'subscriptionId must be a subscription id (a uuid)'),
  };
}

function uuidOf(raw: string | undefined, problem: string): string | null {
  if (!raw) return null;
  if (!isUuid(raw)) throw validation(problem);
  return raw.toLowerCase();
}
