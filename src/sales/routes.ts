import { Type } from 'typebox';
import { merchantOf } from '../auth/api-key.js';
import type { Db } from '../platform/db.js';
import { validation } from '../platform/errors.js';
import type { AuthHook, Http } from '../platform/http.js';
import { parsePublicId } from '../platform/ids.js';
import { IdPath, Sale, ShapeB, ShapeD } from './schemas.js';
import { saleForAccount } from './service.js';
import { saleView } from './view.js';

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
    async (request) => {
      const id = parsePublicId(request.params.id);
      if (!id) throw validation('id must be a sale uuid or a numeric id');
      return saleView(await saleForAccount(deps.db, merchantOf(request).accountId, id));
    },
  );
}
