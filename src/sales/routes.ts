import { Type } from 'typebox';
import { merchantOf } from '../auth/api-key.js';
import { parseIdempotencyKey } from '../cashouts/request.js';
import type { Db } from '../platform/db.js';
import { ShapeA, ShapeB, ShapeD } from '../platform/error-schemas.js';
import { validation } from '../platform/errors.js';
import type { AuthHook, Http } from '../platform/http.js';
import { parsePublicId } from '../platform/ids.js';
import { sendJsonText } from '../platform/json-reply.js';
import { type ChargeInput, createPixSale, refundSale } from './charges.js';
import { ChargeBody, ChargeHeaders, CreatedSale } from './charges.schemas.js';
import { qrSvgDataUri } from './pix/qr.js';
import type { PixChargeProcessor } from './processors/processor.js';
import { saleLookups } from './sale-reads.js';
import { IdPath, Sale } from './schemas.js';
import { saleJson } from './service.js';
import type { SaleSettler } from './settler.js';

export interface SalesRouteDeps {
  db: Db;
  settler: SaleSettler;
  apiKey: AuthHook;
  /** Who opens new PIX charges; null when none is configured (503). */
  pixProcessor: PixChargeProcessor | null;
  /** Every processor able to refund, by name (a sale is refunded where it was charged). */
  refunders: ReadonlyMap<string, PixChargeProcessor>;
  /** Production rules off: postback targets may be loopback or private (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivateTargets: boolean;
}

const security = [{ publicKey: [], privateKey: [] }];

export async function salesRoutes(app: Http, deps: SalesRouteDeps): Promise<void> {
  const saleFor = saleLookups(deps.db);
  app.post(
    '/api/transactions',
    {
      config: { errorShape: 'D' },
      onRequest: deps.apiKey,
      schema: {
        tags: ['public'],
        security,
        headers: ChargeHeaders,
        body: ChargeBody,
        response: {
          201: CreatedSale,
          400: ShapeD,
          401: ShapeD,
          403: Type.Union([ShapeB, ShapeA]),
          409: ShapeD,
          422: ShapeD,
          500: ShapeD,
          502: ShapeD,
          503: ShapeD,
        },
      },
    },
    async (request, reply) => {
      const { accountId } = merchantOf(request);
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const { sale, replayed } = await createPixSale(
        deps.db,
        deps.pixProcessor,
        accountId,
        request.body as ChargeInput, // the schema validated it; shipping is a plain object
        key,
        { allowPrivateTargets: deps.allowPrivateTargets, log: request.log },
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      const body = await saleJson(deps.db, sale.id);
      const qr = await qrSvgDataUri(sale.pix_key!);
      // The stored Sale object, key order kept, with the QR code appended.
      return sendJsonText(reply, 201, `${body.slice(0, -1)},"pixQrCode":${JSON.stringify(qr)}}`);
    },
  );

  app.post(
    '/api/transactions/:id/refund',
    {
      config: { errorShape: 'D' },
      onRequest: deps.apiKey,
      schema: {
        tags: ['public'],
        security,
        params: IdPath,
        response: {
          202: Sale,
          400: ShapeD,
          401: ShapeD,
          403: Type.Union([ShapeD, ShapeB, ShapeA]),
          404: ShapeD,
          409: ShapeD,
          422: ShapeD,
          500: ShapeD,
          502: ShapeD,
          503: ShapeD,
        },
      },
    },
    async (request, reply) => {
      const id = parsePublicId(request.params.id);
      if (!id) throw validation('id must be a sale uuid or a numeric id');
      const accountId = merchantOf(request).accountId;
      const saleId = await refundSale(deps.db, deps.settler, deps.refunders, accountId, id);
      return sendJsonText(reply, 202, await saleJson(deps.db, saleId));
    },
  );

  app.get(
    '/api/transactions/:id',
    {
      config: { errorShape: 'D' },
      onRequest: deps.apiKey,
      schema: {
        tags: ['public'],
        security,
        params: IdPath,
        response: {
          200: Sale,
          400: ShapeD,
          401: ShapeD,
          403: Type.Union([ShapeD, ShapeB, ShapeA]),
          404: ShapeD,
          500: ShapeD,
        },
      },
    },
    async (request, reply) => {
      const id = parsePublicId(request.params.id);
      if (!id) throw validation('id must be a sale uuid or a numeric id');
      const body = await saleFor(merchantOf(request).accountId, id);
      // Already the Sale object in the schema's key order (sales.public_json, see sales/data.ts).
      return sendJsonText(reply, 200, body);
    },
  );
}
