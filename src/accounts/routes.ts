import { Type } from 'typebox';
import { userActor } from '../audit/index.js';
import type { AuthCache } from '../auth/index.js';
import { accountOf, listAllowedIps, replaceAllowedIps, sessionOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';
import { EnvelopeErrorBody, IpAccessErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { IpList, IpListBody } from './schemas.js';

export async function accountRoutes(
  app: Http,
  deps: { db: Db; requireSession: AuthHook; authCache?: AuthCache },
): Promise<void> {
  app.get(
    '/api/settings/allowed-ips',
    {
      config: { errorShape: 'envelope', permission: 'integrations' },
      onRequest: deps.requireSession,
      schema: {
        summary: 'The IP addresses and ranges the API keys are allowed from',
        tags: ['panel'],
        response: { 200: IpList, 401: EnvelopeErrorBody },
      },
    },
    async (request) => ({ ips: await listAllowedIps(deps.db, accountOf(request)) }),
  );

  app.put(
    '/api/settings/allowed-ips',
    {
      config: { errorShape: 'envelope', permission: 'integrations', errors: ['INVALID_IP', 'TOO_MANY_IPS'] },
      onRequest: deps.requireSession,
      // the IP list's own refusals are in its body (shape B), a list that is no list of addresses among them
      attachValidation: true,
      schema: {
        summary: "Replace the API keys' IP allow-list (empty: any address)",
        tags: ['panel'],
        body: IpListBody,
        response: {
          200: IpList,
          400: Type.Union([IpAccessErrorBody, EnvelopeErrorBody]),
          401: EnvelopeErrorBody,
          403: EnvelopeErrorBody,
        },
      },
    },
    async (request) => {
      if (request.validationError) {
        throw new AppError(
          'INVALID_IP',
          `Send {"ips": [...]}, a list of IP addresses (empty: any address): ${request.validationError.message}`,
        );
      }
      return {
        ips: await replaceAllowedIps(
          deps.db,
          accountOf(request),
          request.body.ips,
          userActor(request, sessionOf(request).user),
          deps.authCache,
        ),
      };
    },
  );
}
