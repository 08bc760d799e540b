import { Type } from 'typebox';
import { operatorActor, recordOperatorAudit } from '../operators/index.js';
import type { Db } from '../platform/db/db.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import type { Reconciliation } from '../reconciliation/index.js';
import {
  Discrepancies,
  DiscrepanciesQuery,
  Discrepancy,
  ReconciliationRun,
  ReconciliationRunBody,
  ReconciliationRuns,
  ReconciliationRunsQuery,
  ResolveBody,
} from './schemas.js';
import { withAccountNames } from './views.js';

const A = { errorShape: 'envelope' as const, opsRole: 'finance' as const };
const errors = errorAnswers(EnvelopeErrorBody, [400, 401, 403]);
// at most 15 digits: a number JavaScript holds exactly (16 would be rounded, and a 404 name another id)
const IdParam = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,14}$' }) });

/**
 * Reconciliation with the PSP (finance operators): the runs, scheduled and asked for; a window reconciled on
 * demand (run by the workers, as `gateway reconcile` runs one by the command line); the discrepancies kept, and
 * each resolved with a note of what was done. Every change is audited.
 */
export async function consoleReconciliationRoutes(
  app: Http,
  deps: { db: Db; reconciliation: Reconciliation; requireOperator: AuthHook },
): Promise<void> {
  const { reconciliation } = deps;

  app.get(
    '/api/ops/reconciliation/runs',
    {
      config: A,
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'The 50 newest reconciliation runs (every 10 minutes, daily, and those asked for; or of one schedule), with what each found',
        querystring: ReconciliationRunsQuery,
        response: { 200: ReconciliationRuns, ...errors },
      },
    },
    async (request) => ({
      enabled: reconciliation.enabled,
      data: await reconciliation.runs(request.query.schedule),
    }),
  );

  app.post(
    '/api/ops/reconciliation/runs',
    {
      config: { ...A, errors: ['CONFLICT'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'Reconcile a window of received Pix now (at most 31 days; audited): a worker runs it within seconds, as it runs the scheduled ones. 409 CONFLICT without PIX_PROCESSOR=bcb',
        body: ReconciliationRunBody,
        response: { 202: ReconciliationRun, ...errors, 409: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const actor = operatorActor(request);
      const run = await reconciliation.requestRun(request.body.from, request.body.to, actor.email, (tx, r) =>
        recordOperatorAudit(tx, actor, {
          action: 'reconciliation.requested',
          target: `reconciliation_run:${r.id}`,
          after: { from: r.from, to: r.to },
        }),
      );
      return reply.code(202).send(run);
    },
  );

  app.get(
    '/api/ops/reconciliation/discrepancies',
    {
      config: A,
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'The discrepancies kept, newest first: open ones, or every one with all=true (at most 500)',
        querystring: DiscrepanciesQuery,
        response: { 200: Discrepancies, ...errors },
      },
    },
    async (request) => ({
      data: await withAccountNames(deps.db, await reconciliation.discrepancies(request.query.all === 'true')),
    }),
  );

  app.post(
    '/api/ops/reconciliation/discrepancies/:id/resolve',
    {
      config: { ...A, errors: ['NOT_FOUND', 'INVALID_STATUS'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'Mark an open discrepancy resolved, with what was done about it (audited); 409 INVALID_STATUS when it already is',
        params: IdParam,
        body: ResolveBody,
        response: { 200: Discrepancy, ...errors, 404: EnvelopeErrorBody, 409: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const actor = operatorActor(request);
      return reconciliation.resolve(
        Number(request.params.id),
        request.body.note,
        actor.email,
        (tx, before, after) =>
          recordOperatorAudit(tx, actor, {
            action: 'discrepancy.resolved',
            target: `discrepancy:${before.id}`,
            before: { kind: before.kind, e2eid: before.e2eid, amount: before.amount },
            after: { resolution: after.resolution },
          }),
      );
    },
  );
}
