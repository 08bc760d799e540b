import { Type } from 'typebox';
import { sessionOf } from '../auth/panel-session.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { type CsvColumn, reais, sendCsv } from '../platform/http/csv.js';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import { AppError, notFound, validation } from '../platform/http/errors.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import { pageOf, parsePage } from '../platform/http/pagination.js';
import { parsePublicId } from '../platform/http/public-ids.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { saleForAccount } from './lookup.js';
import { allSales, listSales, type SaleCsvRow, type SaleFilters } from './panel.data.js';
import { IdPath, Sale, SalesPage } from './schemas.js';
import { SALE_STATUSES } from './settlement/status-machine.js';

const PAYMENT_METHODS = ['PIX', 'CREDIT_CARD', 'DEBIT_CARD', 'BOLETO', 'TRANSFER', 'PIX_AUTOMATICO'];

const SalesQuery = Type.Object({
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
  limit: Type.Optional(Type.String({ description: '1..100, default 20' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
});

function filters(q: Record<string, string | undefined>): SaleFilters {
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
  };
}

const CSV: CsvColumn<SaleCsvRow>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'uuid', value: (r) => r.uuid },
  { header: 'criada_em', value: (r) => toSaoPaulo(r.created_at) },
  { header: 'status', value: (r) => r.status },
  { header: 'forma_de_pagamento', value: (r) => r.payment_method },
  { header: 'valor', value: (r) => reais(r.amount) },
  { header: 'taxa', value: (r) => reais(r.system_fee) },
  { header: 'valor_liquido', value: (r) => reais(r.net_amount) },
  { header: 'cliente', value: (r) => r.customer_name },
  { header: 'email', value: (r) => r.customer_email },
  { header: 'documento', value: (r) => r.customer_document },
];

/** The panel's sales: list with filters and search, detail, CSV export (session; shape A errors). */
export async function salesPanelRoutes(
  app: Http,
  // `reads`: the lists and exports, which a read replica may serve
  deps: { db: Db; reads: Queryable; requireSession: AuthHook },
): Promise<void> {
  const common = { config: { errorShape: 'envelope' as const }, onRequest: deps.requireSession };
  const errors = { 400: EnvelopeErrorBody, 401: EnvelopeErrorBody };

  app.get(
    '/api/sales',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: 'Sales, newest first',
        querystring: SalesQuery,
        response: { 200: SalesPage, ...errors },
      },
    },
    async (request, reply) => {
      const f = filters(request.query);
      const { rows, nextCursor } = pageOf(
        await listSales(deps.reads, sessionOf(request).user.id, f),
        f.limit,
      );
      return sendJsonText(
        reply,
        200,
        `{"data":[${rows.map((r) => r.body).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`,
      );
    },
  );

  app.get(
    '/api/sales/export.csv',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary:
          'Every sale matching the filters, as CSV (UTF-8 with BOM, ";" separated, reais with a decimal comma)',
        querystring: Type.Omit(SalesQuery, ['limit', 'cursor']),
        response: { 200: Type.String(), ...errors },
      },
    },
    async (request, reply) => {
      const f = filters(request.query);
      return sendCsv(reply, 'vendas.csv', allSales(deps.reads, sessionOf(request).user.id, f), CSV);
    },
  );

  app.get(
    '/api/sales/:id',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: 'One sale (uuid or numeric id)',
        params: IdPath,
        response: { 200: Sale, ...errors, 404: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const id = parsePublicId(request.params.id);
      if (!id) throw validation('id must be a sale uuid or a numeric id');
      const body = await saleForAccount(deps.db, sessionOf(request).user.id, id).catch((err: unknown) => {
        // another account's sale is simply not found from the panel (decisions.md)
        throw err instanceof AppError && err.code === 'FORBIDDEN' ? notFound('Sale not found') : err;
      });
      return sendJsonText(reply, 200, body);
    },
  );
}
