import { Type } from 'typebox';
import { accountOf } from '../auth/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, notFound } from '../platform/errors/app-error.js';
import { type CsvColumn, reais, sendCsv } from '../platform/http/csv.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { saleIdParam } from '../platform/ids/public-ids.js';
import { pageOf } from '../platform/paging/pagination.js';
import { maskDocument } from '../platform/privacy/mask.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { resolveRecipients } from '../recipients/index.js';
import { ChargeBody, CreatedSale } from './charges.schemas.js';
import { filters, SalesQuery } from './list-filters.js';
import { saleForAccount } from './lookup.js';
import { allSales, listSales, type SaleCsvRow } from './panel.data.js';
import { type ChargeDeps, openCharge } from './routes.js';
import { IdPath, Sale, SalesPage } from './schemas.js';
import type { SaleSettler } from './settlement/settler.js';
import { isClosedUnpaid, type SaleStatus } from './settlement/status-machine.js';

/** The export is read by people: statuses and methods in words, as the panel shows them. */
const STATUS_WORDS: Record<string, string> = {
  PENDENTE: 'Pendente',
  EM_PROCESSAMENTO: 'Em processamento',
  PAGO: 'Pago',
  CANCELADO: 'Cancelado',
  RECUSADO: 'Recusado',
  ESTORNADO: 'Estornado',
  FALHA: 'Falha',
  CHARGEBACK: 'Chargeback',
  MED: 'MED (devolução Pix)',
};
const METHOD_WORDS: Record<string, string> = {
  PIX: 'Pix',
  CREDIT_CARD: 'Cartão de crédito',
  DEBIT_CARD: 'Cartão de débito',
  BOLETO: 'Boleto',
  TRANSFER: 'Transferência',
  PIX_AUTOMATICO: 'Pix Automático',
};

/** A sale's public JSON with its customer's document masked (key order kept). */
function withMaskedDocument(saleJson: string): string {
  const sale = JSON.parse(saleJson) as { customer?: { document?: string | null } | null };
  if (!sale.customer?.document) return saleJson;
  sale.customer.document = maskDocument(sale.customer.document);
  return JSON.stringify(sale);
}

/** A sale closed without ever being paid (cancelled, refused, failed). */
const neverPaid = (r: SaleCsvRow) => isClosedUnpaid(r.status as SaleStatus);

const CSV: CsvColumn<SaleCsvRow>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'uuid', value: (r) => r.uuid },
  { header: 'criada_em', value: (r) => toSaoPaulo(r.created_at) },
  { header: 'status', value: (r) => STATUS_WORDS[r.status] ?? r.status },
  { header: 'forma_de_pagamento', value: (r) => METHOD_WORDS[r.payment_method] ?? r.payment_method },
  { header: 'valor', value: (r) => reais(r.amount) },
  // a sale never paid moved no money: no fee, no net (as its page says), so a column's sum is what was credited
  { header: 'taxa', value: (r) => (neverPaid(r) ? '' : reais(r.system_fee)) },
  { header: 'valor_liquido', value: (r) => (neverPaid(r) ? '' : reais(r.net_amount)) },
  // what was given back to the payer so far (refunds made, a dispute lost): a PAGO sale partly refunded says so
  { header: 'valor_estornado', value: (r) => reais(r.refunded_amount) },
  { header: 'cliente', value: (r) => r.customer_name },
  { header: 'email', value: (r) => r.customer_email },
  { header: 'documento', value: (r) => maskDocument(r.customer_document) },
];

/** The panel's sales: list with filters and search, detail, CSV export (session; errors in the envelope body). */
export interface SalesPanelDeps {
  db: Db;
  /** The lists and exports, which a read replica may serve. */
  reads: Queryable;
  requireSession: AuthHook;
  settler: SaleSettler;
  /** What "Nova cobrança" opens charges with: the API's own payment methods. */
  charges: ChargeDeps;
}

/** The panel's list also takes the sales of one recipient (split payments). */
const PanelSalesQuery = Type.Object({
  ...SalesQuery.properties,
  recipientId: Type.Optional(
    Type.String({ description: "Only the sales whose split includes this recipient (one of the account's)" }),
  ),
});

/** The list's filters, a recipient's id resolved to the account's recipient (another's or none: 400). */
async function panelFilters(q: Queryable, accountId: number, query: Record<string, string | undefined>) {
  const f = filters(query);
  if (!query.recipientId) return f;
  const found = await resolveRecipients(q, accountId, [query.recipientId], {
    includeInactive: true,
    field: 'recipientId',
  });
  return { ...f, splitRecipient: [...found.values()][0]! };
}

export async function salesPanelRoutes(app: Http, deps: SalesPanelDeps): Promise<void> {
  const common = {
    config: { errorShape: 'envelope' as const, permission: 'money.view' as const },
    onRequest: deps.requireSession,
  };
  const errors = { 400: EnvelopeErrorBody, 401: EnvelopeErrorBody };

  app.get(
    '/api/sales',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: 'Sales, newest first',
        querystring: PanelSalesQuery,
        response: { 200: SalesPage, ...errors },
      },
    },
    async (request, reply) => {
      const f = await panelFilters(deps.reads, accountOf(request), request.query);
      const { rows, nextCursor } = pageOf(await listSales(deps.reads, accountOf(request), f), f.limit);
      return sendJsonText(
        reply,
        200,
        // a list shows the customer's document masked; the sale's own page shows it whole
        `{"data":[${rows.map((r) => withMaskedDocument(r.body)).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`,
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
        querystring: Type.Omit(PanelSalesQuery, ['limit', 'cursor']),
        response: { 200: Type.String(), ...errors },
      },
    },
    async (request, reply) => {
      const f = await panelFilters(deps.reads, accountOf(request), request.query);
      return sendCsv(reply, 'vendas.csv', allSales(deps.reads, accountOf(request), f), CSV);
    },
  );

  app.get(
    '/api/sales/:id',
    {
      ...common,
      config: { ...common.config, errors: ['NOT_FOUND'] },
      schema: {
        tags: ['panel'],
        summary: 'One sale (uuid or numeric id)',
        params: IdPath,
        response: { 200: Sale, ...errors, 404: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const id = saleIdParam(request.params.id);
      const body = await saleForAccount(deps.db, accountOf(request), id).catch((err: unknown) => {
        // another account's sale is simply not found from the panel (decisions.md)
        throw err instanceof AppError && err.code === 'FORBIDDEN' ? notFound('Sale not found') : err;
      });
      return sendJsonText(reply, 200, body);
    },
  );

  app.post(
    '/api/sales',
    {
      config: {
        errorShape: 'envelope',
        permission: 'sales.create',
        moves: 'charge',
        errors: ['PROCESSOR_ERROR', 'PROCESSOR_UNAVAILABLE', 'CARD_PAYMENTS_PAUSED'],
      },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary:
          '"Nova cobrança": open a PIX charge or issue a boleto híbrido from the panel (POST /api/transactions\'s own path and body)',
        body: ChargeBody,
        response: {
          201: CreatedSale,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 409, 422, 502, 503]),
        },
      },
    },
    async (request, reply) => {
      const { body } = await openCharge(
        deps.charges,
        accountOf(request),
        request.body,
        null,
        request.log,
        request.ip,
      );
      return sendJsonText(reply, 201, body);
    },
  );
}
