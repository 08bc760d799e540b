import { Type } from 'typebox';
import { merchantOf } from '../auth/index.js';
import type { BoletoSettings } from '../platform/config/boleto.js';
import type { Db } from '../platform/db/db.js';
import { notFound } from '../platform/errors/app-error.js';
import { errorAnswers, keyDoorErrors, TransactionErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { saleIdParam } from '../platform/ids/public-ids.js';
import { ownedSale, saleOwnerAndStatus, saleStatus } from '../sales/index.js';
import { type BoletoRow, boletoByTokenHash, boletoOfSale } from './data.js';
import { tokenHash } from './issue.js';
import { BoletoPdfCache, PDF_CACHE_BYTES } from './pdf-cache.js';

const security = [{ publicKey: [], privateKey: [] }];
/** The 200 answer: the PDF's bytes (the errors stay JSON in the route's shape). */
const Pdf = {
  description: 'The boleto as an A4 PDF',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

const pdfHeaders = (boleto: BoletoRow) => ({
  'content-type': 'application/pdf',
  'content-disposition': `inline; filename="boleto-${boleto.nosso_numero}.pdf"`,
  'cache-control': 'private, no-store',
});

/**
 * The boleto's PDF: for the merchant (API keys) and for the payer (the unguessable link in `pdfUrl`, no key:
 * counted by source address, `perIp`). Each boleto is rendered once per process (BoletoPdfCache).
 */
export async function boletoRoutes(
  app: Http,
  deps: {
    db: Db;
    apiKey: AuthHook;
    settings: BoletoSettings;
    perIp: AuthHook | null;
    /** SANDBOX on: the PDFs say they have no value. */
    testMode: boolean;
  },
): Promise<void> {
  const pdfs = new BoletoPdfCache(deps.settings, PDF_CACHE_BYTES, deps.testMode);
  app.get(
    '/api/transactions/:id/boleto.pdf',
    {
      config: { errorShape: 'transaction', errors: ['FORBIDDEN', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary: "A BOLETO sale's boleto híbrido as an A4 PDF",
        tags: ['public'],
        security,
        params: Type.Object({ id: Type.String() }),
        response: {
          200: Pdf,
          ...keyDoorErrors([404, 500]),
        },
      },
    },
    async (request, reply) => {
      const id = saleIdParam(request.params.id);
      // its owner and status alone (the whole row carries the ~5 KB boleto object twice, read out of line)
      const sale = ownedSale(await saleOwnerAndStatus(deps.db, id), merchantOf(request).accountId);
      const boleto = await boletoOfSale(deps.db, sale.id);
      if (!boleto) throw notFound('This sale has no boleto');
      const pdf = await pdfs.pdf(boleto, sale.status === 'CANCELADO');
      return reply.headers(pdfHeaders(boleto)).send(Buffer.from(pdf) as unknown as string); // bytes, sent as they are
    },
  );

  app.get(
    '/api/boletos/:file',
    {
      config: { errorShape: 'transaction', errors: ['NOT_FOUND', 'RATE_LIMITED'] },
      ...(deps.perIp ? { onRequest: deps.perIp } : {}),
      schema: {
        summary:
          "The payer's link to a boleto's PDF (the `pdfUrl` of the sale): no key, an unguessable token",
        tags: ['public'],
        params: Type.Object({ file: Type.String({ maxLength: 100 }) }),
        response: {
          200: Pdf,
          ...errorAnswers(TransactionErrorBody, [404, 429, 500]),
        },
      },
    },
    async (request, reply) => {
      const m = /^([A-Za-z0-9_-]{32})\.pdf$/.exec(request.params.file);
      const boleto = m ? await boletoByTokenHash(deps.db, tokenHash(m[1]!)) : null;
      if (!boleto) throw notFound('Boleto not found');
      // its sale's status alone (the whole row carries the ~5 KB boleto object twice, read out of line)
      const pdf = await pdfs.pdf(boleto, (await saleStatus(deps.db, boleto.sale_id)) === 'CANCELADO');
      return reply.headers(pdfHeaders(boleto)).send(Buffer.from(pdf) as unknown as string); // bytes, sent as they are
    },
  );
}
