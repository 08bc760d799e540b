import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { type Static, Type } from 'typebox';
import { apiKeyOrSession, merchantOf, requestAccount } from '../auth/index.js';
import { qrSvgDataUri } from '../payment-standards/index.js';
import type { Db } from '../platform/db/db.js';
import { AppError, notFound, validation } from '../platform/errors/app-error.js';
import {
  AnyDoorForbiddenBody,
  doorDeclaration,
  EITHER_DOOR_ERRORS,
  EITHER_DOOR_ROUTE,
  EitherDoorErrorBody,
  errorAnswers,
  KeyForbiddenBody,
  keyDoorErrors,
  TransactionErrorBody,
} from '../platform/http/error-schemas.js';
import { parseIdempotencyKey } from '../platform/http/idempotency-key.js';
import { emptyBodyIsObject } from '../platform/http/json-body.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { saleIdParam } from '../platform/ids/public-ids.js';
import type { Queue } from '../platform/jobs/queue.js';
import { pageOf } from '../platform/paging/pagination.js';
import { ALLOW, customerFacts, type RiskRules } from '../risk/index.js';
import { type BlockedChargeInput, openBlockedSale } from './blocked.js';
import { findSaleRow } from './charges.data.js';
import { ChargeBody, ChargeHeaders, CreatedSale } from './charges.schemas.js';
import { saleLookups } from './coalesced-lookups.js';
import { filters, SalesQuery } from './list-filters.js';
import { ownedSale, saleJson } from './lookup.js';
import { listSales } from './panel.data.js';
import type { OpenedSale, PaymentMethods } from './processors/method.js';
import { refundSale } from './refunds/refund-sale.js';
import { refundView } from './refunds/refund-view.js';
import { refundsOfSale } from './refunds/refunds.data.js';
import { IdPath, REFUND_ERRORS, RefundBody, RefundedSale, RefundList, Sale, SalesPage } from './schemas.js';
import type { SaleSettler } from './settlement/settler.js';

export interface SalesRouteDeps {
  db: Db;
  settler: SaleSettler;
  apiKey: AuthHook;
  /** The panel's session: the routes with two doors (a sale's refunds) let it in too. */
  requireSession: AuthHook;
  /** The payment methods (Pix, boleto, card), each behind the one port. */
  methods: PaymentMethods;
  /** The risk rules in force (card sales are decided by the cards module); null: none asked. */
  risk: RiskRules | null;
  /** The job queue a refused sale's move is recorded with. */
  queue: Queue;
}

const security = [{ publicKey: [], privateKey: [] }];

/** What opening a charge needs (the API's and the panel's routes). */
export type ChargeDeps = Pick<SalesRouteDeps, 'db' | 'methods' | 'risk' | 'queue'>;

/**
 * Opens a PIX charge or issues a boleto for the account, as the body says (validated by `ChargeBody`): the stored
 * Sale object, key order kept, with the QR code of its BR Code appended.
 */
export async function openCharge(
  deps: ChargeDeps,
  accountId: number,
  input: Static<typeof ChargeBody>,
  key: string | null,
  log: Logger,
  /** Where the request came from: the address the risk rules' ipIn is matched against. */
  ip: string,
): Promise<{ body: string; replayed: boolean }> {
  const isCard = input.paymentMethod === 'CREDIT_CARD' || input.paymentMethod === 'DEBIT_CARD';
  if (!isCard) {
    for (const field of ['card', 'installments', 'capture'] as const) {
      if (input[field] !== undefined) throw validation(`${field} applies to card sales only`);
    }
  }
  if (input.boleto !== undefined && input.paymentMethod !== 'BOLETO') {
    throw validation('boleto applies to BOLETO sales only');
  }
  if (input.expiresIn !== undefined && input.paymentMethod !== 'PIX') {
    throw validation(
      input.paymentMethod === 'BOLETO'
        ? 'expiresIn applies to PIX sales only: a boleto is due on its boleto.dueDate'
        : 'expiresIn applies to PIX sales only',
    );
  }
  // card sales are decided by the cards module (the risk rules see the card)
  const risk =
    !isCard && deps.risk
      ? deps.risk.decide({
          method: input.paymentMethod,
          amountCents: input.amount,
          ...customerFacts(input.customer),
          ip,
        })
      : ALLOW;
  // every sale comes back as it stands (a blocked one read after its refusal): answered as stored, not read again
  const port = deps.methods.of(input.paymentMethod);
  const opened: OpenedSale =
    risk.decision === 'block'
      ? await openBlockedSale(deps.db, deps.queue, accountId, input as BlockedChargeInput, key, risk, {
          check: () => port.check(accountId, input),
        })
      : await port.open(accountId, input, key, log);
  const body = opened.sale.public_json;
  if (opened.sale.pix_key === null) return { body, replayed: opened.replayed };
  // a boleto's answer carries the QR its issue drew for its Pix (the same code): not drawn twice
  const drawn = opened.sale.boleto?.pixQrCode;
  const qr = typeof drawn === 'string' ? drawn : await qrSvgDataUri(opened.sale.pix_key);
  return { body: `${body.slice(0, -1)},"pixQrCode":${JSON.stringify(qr)}}`, replayed: opened.replayed };
}

export async function salesRoutes(app: Http, deps: SalesRouteDeps): Promise<void> {
  const saleFor = saleLookups(deps.db);
  app.post(
    '/api/transactions',
    {
      config: {
        errorShape: 'transaction',
        keyScope: 'charges',
        moves: 'charge',
        errors: [
          'IDEMPOTENCY_KEY_IN_USE',
          'IDEMPOTENCY_KEY_REUSED',
          'PROCESSOR_ERROR',
          'PROCESSOR_UNAVAILABLE',
          'CARD_PAYMENTS_PAUSED',
        ],
      },
      onRequest: deps.apiKey,
      schema: {
        summary:
          'Open a PIX charge (a BR Code and its QR code), issue a boleto híbrido or charge a tokenized card, metadata kept as given',
        tags: ['public'],
        security,
        headers: ChargeHeaders,
        body: ChargeBody,
        response: {
          201: CreatedSale,
          ...keyDoorErrors([409, 422, 500, 502, 503]),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = merchantOf(request);
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const { body, replayed } = await openCharge(
        deps,
        accountId,
        request.body,
        key,
        request.log,
        request.ip,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return sendJsonText(reply, 201, body);
    },
  );

  // a sale's refunds have two doors: the API's (keys) and the panel's sale page (the session), each its own path
  refundRoutes(app, deps, { kind: 'api', path: '/api/transactions', auth: deps.apiKey });
  refundRoutes(app, deps, { kind: 'panel', path: '/api/sales', auth: deps.requireSession });

  app.get(
    '/api/transactions/:id',
    {
      config: { errorShape: 'transaction', errors: ['FORBIDDEN', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary: 'One sale, by uuid or numeric id',
        tags: ['public'],
        security,
        params: IdPath,
        response: {
          200: Sale,
          ...keyDoorErrors([404, 500]),
        },
      },
    },
    async (request, reply) => {
      const id = saleIdParam(request.params.id);
      const body = await saleFor(merchantOf(request).accountId, id);
      // Already the Sale object in the schema's key order (sales.public_json, see sales/data.ts).
      return sendJsonText(reply, 200, body);
    },
  );

  app.get(
    '/api/transactions',
    {
      config: { errorShape: 'transaction' },
      onRequest: deps.apiKey,
      schema: {
        summary: "The account's sales, newest first, filtered, in cursor pages",
        description:
          '`limit` 1..100 (default 20); `nextCursor` is null on the last page. Dates as in the panel: a bare date is a whole day in São Paulo.',
        tags: ['public'],
        security,
        querystring: Type.Omit(SalesQuery, ['q']),
        response: {
          200: SalesPage,
          400: TransactionErrorBody,
          401: TransactionErrorBody,
          403: KeyForbiddenBody,
          500: TransactionErrorBody,
        },
      },
    },
    async (request, reply) => {
      const f = filters({ ...request.query, q: undefined });
      const { rows, nextCursor } = pageOf(
        await listSales(deps.db, merchantOf(request).accountId, f),
        f.limit,
      );
      return sendJsonText(
        reply,
        200,
        `{"data":[${rows.map((r) => r.body).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`,
      );
    },
  );

  app.post(
    '/api/transactions/:id/cancel',
    {
      config: {
        errorShape: 'transaction',
        keyScope: 'charges',
        permission: 'sales.create',
        errors: ['FORBIDDEN', 'NOT_FOUND', 'INVALID_STATUS', 'PROCESSOR_ERROR', 'PROCESSOR_UNAVAILABLE'],
      },
      // one route, two doors: the panel's sale page cancels through it too (permission sales.create)
      onRequest: apiKeyOrSession(deps.apiKey, deps.requireSession),
      preValidation: emptyBodyIsObject,
      schema: {
        summary:
          'Cancel a PENDENTE PIX or BOLETO sale (its charge removed at the processor) or void an authorized card sale not captured (EM_PROCESSAMENTO): the sale CANCELADO',
        description:
          'Any other status → 409 INVALID_STATUS (a paid sale is refunded instead; a card authorization held for a risk review is decided by the review). A charge the processor reports paid meanwhile is credited, not cancelled. The acquirer refusing the void → 502 PROCESSOR_ERROR, unreachable → 503 PROCESSOR_UNAVAILABLE. ' +
          'API keys (errors in shape D) or the panel session (shape A; another account’s sale: 404).',
        ...EITHER_DOOR_ROUTE,
        params: IdPath,
        response: {
          200: Sale,
          ...EITHER_DOOR_ERRORS,
          ...errorAnswers(EitherDoorErrorBody, [409, 500, 502, 503]),
        },
      },
    },
    async (request, reply) => {
      const id = saleIdParam(request.params.id);
      const accountId = requestAccount(request);
      // each sale is cancelled by its payment method: a charge removed at its processor, an authorization voided
      const cancel = async () => {
        const sale = ownedSale(await findSaleRow(deps.db, id), accountId);
        return deps.methods.of(sale.payment_method).cancel(accountId, id);
      };
      const saleId = await cancel().catch(hiddenFromPanel(request));
      return sendJsonText(reply, 200, await saleJson(deps.db, saleId));
    },
  );
}

/** Through the panel's door another account's sale is not found (a key is told it is not its own). */
function hiddenFromPanel(request: FastifyRequest): (err: unknown) => never {
  return (err) => {
    if (request.merchant === undefined && err instanceof AppError && err.code === 'FORBIDDEN')
      throw notFound('Sale not found');
    throw err;
  };
}

/**
 * A sale's refund and its refunds list, registered once for each door: under `/api/transactions` for API keys
 * (errors in shape D; another account's sale is FORBIDDEN), under `/api/sales` for the panel's session (shape A;
 * another account's sale is not found). A panel session never opens `/api/transactions/*` but its cancel.
 */
function refundRoutes(
  app: Http,
  deps: SalesRouteDeps,
  side: { kind: 'api' | 'panel'; path: string; auth: AuthHook },
): void {
  const api = side.kind === 'api';
  const { errorShape, body, errors, common } = doorDeclaration(side.kind, AnyDoorForbiddenBody);
  const door = (route: string) =>
    api
      ? `API keys, errors in shape D (the panel's door is ${route.replace('/api/transactions', '/api/sales')}).`
      : `The panel session, errors in shape A; another account’s sale: 404 (API keys use ${route.replace('/api/sales', '/api/transactions')}).`;
  app.post(
    `${side.path}/:id/refund`,
    {
      config: { errorShape, permission: 'sales.create', errors: REFUND_ERRORS },
      onRequest: side.auth,
      preValidation: emptyBodyIsObject,
      schema: {
        ...common,
        summary: 'Refund a paid sale in full or in part (its money is held until the processor answers)',
        description:
          'Without `amountCents`, refunds all that is left. Several partial refunds may follow each other up to what ' +
          'the payer paid; the sale becomes ESTORNADO when the last one is made. With an Idempotency-Key, a repeat ' +
          `answers the same refund (Idempotent-Replayed: true) and never makes a second one. ${door(`POST ${side.path}/{id}/refund`)}`,
        params: IdPath,
        headers: ChargeHeaders,
        body: RefundBody,
        response: { 202: RefundedSale, ...errors, ...errorAnswers(body, [409, 422, 500, 502, 503]) },
      },
    },
    async (request, reply) => {
      const id = saleIdParam(request.params.id);
      const { body: refunded, replayed } = await refundSale(
        deps.db,
        deps.settler.queue,
        deps.methods,
        requestAccount(request),
        id,
        {
          amountCents: request.body?.amountCents ?? null,
          key: parseIdempotencyKey(request.headers['idempotency-key']),
        },
      ).catch(hiddenFromPanel(request));
      if (replayed) reply.header('idempotent-replayed', 'true');
      return sendJsonText(reply, 202, refunded);
    },
  );

  app.get(
    `${side.path}/:id/refunds`,
    {
      config: { errorShape, permission: 'money.view', errors: ['FORBIDDEN', 'NOT_FOUND'] },
      onRequest: side.auth,
      schema: {
        ...common,
        summary:
          "A sale's refunds, oldest first (each with its status: pending, succeeded or failed, and who paid it: allocation, feeReturnedCents)",
        description: door(`GET ${side.path}/{id}/refunds`),
        params: IdPath,
        response: { 200: RefundList, ...errors, ...errorAnswers(body, [500]) },
      },
    },
    async (request) => {
      const id = saleIdParam(request.params.id);
      const sale = await findSaleRow(deps.db, id);
      // the panel finds no other account's sale; a key is told it is not its own (FORBIDDEN)
      if (!api && sale?.account_id !== requestAccount(request)) throw notFound('Sale not found');
      const owned = ownedSale(sale, requestAccount(request));
      return (await refundsOfSale(deps.db, owned.id)).map(refundView);
    },
  );
}
