import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { getAccount } from '../accounts/index.js';
import { operatorActor, recordOperatorAudit } from '../operators/index.js';
import { notFound } from '../platform/errors/app-error.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { Http } from '../platform/http/types.js';
import { Delivery, Webhook } from '../webhooks/index.js';
import type { ConsoleRouteDeps } from './accounts.routes.js';

const A = { errorShape: 'envelope' as const };
const errors = {
  ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
};
const Id = Type.String({ pattern: '^[1-9][0-9]{0,15}$' });
const params = <T extends FastifyRequest>(request: T) => request.params as Record<string, string>;

/** An account's webhooks and their deliveries, as support reads them, and resending one (audited). */
export async function consoleDeliveryRoutes(app: Http, deps: ConsoleRouteDeps): Promise<void> {
  app.get(
    '/api/ops/accounts/:id/webhooks',
    {
      config: { ...A, opsRole: 'support', errors: ['NOT_FOUND'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: "An account's webhooks (an unknown account: 404, as its other routes answer)",
        params: Type.Object({ id: Id }),
        response: { 200: Type.Array(Webhook), ...errors },
      },
    },
    async (request) => {
      const accountId = Number(params(request).id);
      if (!(await getAccount(deps.db, accountId))) throw notFound('Account not found');
      return deps.webhooks.list(accountId);
    },
  );

  app.get(
    '/api/ops/accounts/:id/webhooks/:webhookId/deliveries',
    {
      config: { ...A, opsRole: 'support', errors: ['NOT_FOUND'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: "A webhook's last 100 deliveries, newest first, with each attempt",
        params: Type.Object({ id: Id, webhookId: Id }),
        response: { 200: Type.Array(Delivery), ...errors },
      },
    },
    async (request, reply) => {
      const p = params(request);
      return sendJsonText(
        reply,
        200,
        await deps.webhooks.deliveriesJson(Number(p.id), Number(p.webhookId), 100),
      );
    },
  );

  app.post(
    '/api/ops/accounts/:id/deliveries/:deliveryId/resend',
    {
      config: { ...A, opsRole: 'support', errors: ['NOT_FOUND', 'CONFLICT'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'Send one of the account’s deliveries again (same event id, new timestamp; audited)',
        params: Type.Object({ id: Id, deliveryId: Id }),
        response: { 202: Delivery, ...errors, 409: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const accountId = Number(params(request).id);
      const deliveryId = Number(params(request).deliveryId);
      const delivery = await deps.webhooks.resend(accountId, deliveryId);
      await recordOperatorAudit(deps.db, operatorActor(request), {
        action: 'delivery.resent',
        accountId,
        target: `delivery:${deliveryId}`,
      });
      return reply.code(202).send(delivery);
    },
  );
}
