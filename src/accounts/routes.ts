import { Type } from 'typebox';
import { userActor } from '../audit/actor.js';
import type { AuthCache } from '../auth/auth-cache.js';
import { sessionOf } from '../auth/panel-session.js';
import type { Db } from '../platform/db.js';
import { ShapeA, ShapeB } from '../platform/error-schemas.js';
import type { AuthHook, Http } from '../platform/http.js';
import { listAllowedIps, replaceAllowedIps } from './allowed-ips.service.js';
import { IpList, IpListBody } from './schemas.js';

export async function accountRoutes(
  app: Http,
  deps: { db: Db; requireSession: AuthHook; authCache?: AuthCache },
): Promise<void> {
  app.get(
    '/api/settings/allowed-ips',
    {
      config: { errorShape: 'A' },
      onRequest: deps.requireSession,
      schema: { tags: ['panel'], response: { 200: IpList, 401: ShapeA } },
    },
    async (request) => ({ ips: await listAllowedIps(deps.db, sessionOf(request).user.id) }),
  );

  app.put(
    '/api/settings/allowed-ips',
    {
      config: { errorShape: 'A' },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        body: IpListBody,
        response: { 200: IpList, 400: Type.Union([ShapeB, ShapeA]), 401: ShapeA, 403: ShapeA },
      },
    },
    async (request) => ({
      ips: await replaceAllowedIps(
        deps.db,
        sessionOf(request).user.id,
        request.body.ips,
        userActor(request, sessionOf(request).user),
        deps.authCache,
      ),
    }),
  );
}
