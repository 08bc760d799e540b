import { merchantOf } from '../auth/index.js';
import { Dispute, type Disputes, OpenDisputeBody, OutcomeBody } from '../disputes/index.js';
import type { Db } from '../platform/db/db.js';
import { notFound } from '../platform/errors/app-error.js';
import { KEY_ROUTE_ERRORS, TransactionErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { isUuid } from '../platform/ids/public-ids.js';
import { IdPath } from '../sales/index.js';
import { sandboxId } from './ids.js';

export interface SandboxDisputeDeps {
  db: Db;
  apiKey: AuthHook;
  disputes: Disputes;
}

// shape D errors, as the API-key routes of disputes (docs/decisions.md)
const errors = { ...KEY_ROUTE_ERRORS, 409: TransactionErrorBody };

/** The acquirer's chargeback notice, the PSP's MED notice and their verdicts, played by the caller. */
export async function sandboxDisputeRoutes(app: Http, deps: SandboxDisputeDeps): Promise<void> {
  app.post(
    '/api/sandbox/sales/:id/dispute',
    {
      config: { errorShape: 'transaction', errors: ['CONFLICT', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary:
          "Sandbox: open a dispute of a PAGO sale, as its acquirer's chargeback or its PSP's MED notice would",
        tags: ['sandbox'],
        params: IdPath,
        body: OpenDisputeBody,
        response: { 201: Dispute, ...errors },
      },
    },
    async (request, reply) => {
      const { dispute } = await deps.disputes.open({
        accountId: merchantOf(request).accountId,
        sale: sandboxId(request.params.id),
        kind: request.body.kind,
        amountCents: request.body.amountCents,
        reason: request.body.reason,
        source: 'sandbox',
      });
      return reply.code(201).send(await deps.disputes.viewOf(deps.db, dispute));
    },
  );

  app.post(
    '/api/sandbox/disputes/:id/outcome',
    {
      config: { errorShape: 'transaction', errors: ['CONFLICT', 'DISPUTE_CLOSED', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary:
          "Sandbox: the acquirer's or PSP's verdict on a dispute (won: the amount returns; lost: it stays out)",
        tags: ['sandbox'],
        params: IdPath,
        body: OutcomeBody,
        response: { 200: Dispute, ...errors },
      },
    },
    async (request) => {
      if (!isUuid(request.params.id)) throw notFound('Dispute not found');
      const closed = await deps.disputes.decide(
        merchantOf(request).accountId,
        request.params.id.toLowerCase(),
        request.body.outcome,
      );
      return deps.disputes.viewOf(deps.db, closed);
    },
  );
}
