import { Type } from 'typebox';
import type { Db } from '../../../platform/db.js';
import { ShapeA } from '../../../platform/error-schemas.js';
import type { Http } from '../../../platform/http.js';
import type { PixApiClient } from '../../../platform/pix-api-client.js';
import type { Queue } from '../../../platform/queue.js';
import type { SaleSettler } from '../../settler.js';
import { handleNotifiedPix } from './received.js';

const WebhookPixBody = Type.Object({
  pix: Type.Array(Type.Object({ endToEndId: Type.String({ minLength: 1, maxLength: 64 }) }), {
    maxItems: 1000,
  }),
});

/**
 * POST {PUBLIC_URL}/api/providers/bcb/webhook/pix: the PSP's webhook for received Pix (the standard's
 * callback `{webhookUrl}/pix`). Unsigned by the standard, so it only says which Pix to read back.
 */
export async function bcbWebhookRoutes(
  app: Http,
  deps: { db: Db; queue: Queue; settler: SaleSettler; client: PixApiClient },
): Promise<void> {
  app.post(
    '/api/providers/bcb/webhook/pix',
    {
      config: { errorShape: 'A' },
      schema: {
        tags: ['processors'],
        body: WebhookPixBody,
        response: { 200: Type.Object({ outcomes: Type.Array(Type.String()) }), 400: ShapeA },
      },
    },
    async (request) => ({
      outcomes: await handleNotifiedPix(deps.db, deps.queue, deps.settler, deps.client, request.body.pix),
    }),
  );
}
