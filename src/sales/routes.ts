import { Type } from 'typebox';
import { merchantOf } from '../auth/api-key.js';
import type { Db } from '../platform/db.js';
import { ShapeB, ShapeD } from '../platform/error-schemas.js';
import { validation } from '../platform/errors.js';
import type { AuthHook, Http } from '../platform/http.js';
import { parsePublicId } from '../platform/ids.js';
import { sendJsonText } from './json-reply.js';
import { IdPath, Sale } from './schemas.js';
import { saleForAccount } from './service.js';

export async function salesRoutes(app: Http, deps: { db: Db; apiKey: AuthHook }): Promise<void> {
  app.get(
    '/api/transactions/:id',
    {
      config: { errorShape: 'D' },
      onRequest: deps.apiKey,
      schema: {
        tags: ['public'],
        security: [{ publicKey: [], privateKey: [] }],
        params: IdPath,
        response: {
          200: Sale,
          400: ShapeD,
          401: ShapeD,
          403: Type.Union([ShapeD, ShapeB]),
          404: ShapeD,
          500: ShapeD,
        },
      },
    },
    async (request, reply) => {
      const id = parsePublicId(request.params.id);
      if (!id) throw validation('id must be a sale uuid or a numeric id');
      const body = await saleForAccount(deps.db, merchantOf(request).accountId, id);
      // Already the Sale object in the schema's key order (sales.public_json, see sales/data.ts).
      return sendJsonText(reply, 200, body);
    },
  );
}
