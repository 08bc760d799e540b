import { Type } from 'typebox';
import type { PixApiClient } from '../payment-standards/index.js';
import type { Db } from '../platform/db/db.js';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import type { Http } from '../platform/http/types.js';
import type { Queue } from '../platform/jobs/queue.js';
import type { SaleSettler } from '../sales/index.js';
import { handleNotifiedPix, type NotifiedPix } from './received.js';
import { handleNotifiedCobrs, handleNotifiedRecs } from './recurring.js';

// Entries are checked one by one in handleNotifiedPix (an invalid one is refused, never the whole batch), so
// their fields are taken as they come; only what names a Pix to read back is kept.
// An entry that is not even an object (null, a number) is refused alone too, as the entries' fields are.
// `pix` is optional, as the standard's WebhookPixBody has it: a callback without it announces nothing (200)
const WebhookPixBody = Type.Object({
  pix: Type.Optional(
    Type.Array(
      Type.Unknown({
        description: 'A Pix received: {endToEndId, txid, devolucoes?}; anything else in it is not read',
      }),
      { maxItems: 1000 },
    ),
  ),
});
const entryOf = (e: unknown): NotifiedPix =>
  typeof e === 'object' && e !== null && !Array.isArray(e) ? (e as NotifiedPix) : {};

// The standard's callbacks carry more (statuses, history, Pix): none of it is believed, only the ids are read.
const Id = Type.String({ minLength: 1, maxLength: 64 });
const WebhookRecBody = Type.Object({ recs: Type.Array(Type.Object({ idRec: Id }), { maxItems: 1000 }) });
const WebhookCobrBody = Type.Object({ cobsr: Type.Array(Type.Object({ txid: Id }), { maxItems: 1000 }) });
const Outcomes = Type.Object({ outcomes: Type.Array(Type.String()) });

/**
 * POST {PUBLIC_URL}/api/providers/bcb/webhook/pix: the PSP's webhook for received Pix (the standard's
 * callback `{webhookUrl}/pix`). Unsigned by the standard, so it only says which Pix to read back.
 */
export async function bcbWebhookRoutes(
  app: Http,
  deps: {
    db: Db;
    queue: Queue;
    settler: SaleSettler;
    client: PixApiClient;
    /** PIX_AUTOMATICO_ACCOUNT: the account of the mandates the PSP reports. */
    recurrenceAccountId: number | null;
  },
): Promise<void> {
  const recurring = { ...deps, accountId: deps.recurrenceAccountId };
  app.post(
    '/api/providers/bcb/webhook/pix',
    {
      config: { errorShape: 'envelope' },
      schema: {
        tags: ['processors'],
        body: WebhookPixBody,
        response: { 200: Outcomes, 400: EnvelopeErrorBody, 503: Outcomes },
      },
    },
    async (request, reply) => {
      const { outcomes, complete } = await handleNotifiedPix(
        deps.db,
        deps.queue,
        deps.settler,
        deps.client,
        (request.body.pix ?? []).map(entryOf),
        request.log,
      );
      // the standard's callback expects 200; anything else makes the PSP send the notification again
      if (!complete) return reply.code(503).header('retry-after', '10').send({ outcomes });
      return { outcomes };
    },
  );

  // {webhookUrl}/rec and {webhookUrl}/cobr: Pix Automático (PUT /webhookrec, PUT /webhookcobr), read back too
  app.post(
    '/api/providers/bcb/webhook/rec',
    {
      config: { errorShape: 'envelope' },
      schema: {
        tags: ['processors'],
        body: WebhookRecBody,
        response: { 200: Outcomes, 400: EnvelopeErrorBody },
      },
    },
    async (request) => ({
      outcomes: await handleNotifiedRecs({ ...recurring, log: request.log }, request.body.recs),
    }),
  );
  app.post(
    '/api/providers/bcb/webhook/cobr',
    {
      config: { errorShape: 'envelope' },
      schema: {
        tags: ['processors'],
        body: WebhookCobrBody,
        response: { 200: Outcomes, 400: EnvelopeErrorBody },
      },
    },
    async (request) => ({
      outcomes: await handleNotifiedCobrs({ ...recurring, log: request.log }, request.body.cobsr),
    }),
  );
}
