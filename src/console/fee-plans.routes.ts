import { Type } from 'typebox';
import {
  defaultFeePlanName,
  FeePlan,
  FeePlanBody,
  FeePlanList,
  FeePlanPatch,
  listFeePlans,
} from '../accounts/index.js';
import { operatorActor } from '../operators/index.js';
import type { Db } from '../platform/db/db.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { FeePlanActions } from './fee-plans.js';
import { AccountIdParam } from './schemas.js';

const A = { errorShape: 'envelope' as const, opsRole: 'finance' as const };
const errors = {
  ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
};
const PlanIdParam = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) });

/** Fee plans (finance operators): list, create, change, and put an account on one; every change audited. */
export async function consoleFeePlanRoutes(
  app: Http,
  deps: { db: Db; requireOperator: AuthHook },
): Promise<void> {
  const actions = new FeePlanActions(deps.db);

  app.get(
    '/api/ops/fee-plans',
    {
      config: A,
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'Every fee plan',
        response: { 200: FeePlanList, ...errors },
      },
    },
    async () => {
      const data = await listFeePlans(deps.db);
      const name = defaultFeePlanName();
      return { data, defaultPlanId: data.find((p) => p.name === name)?.id ?? null };
    },
  );

  app.post(
    '/api/ops/fee-plans',
    {
      config: { ...A, errors: ['CONFLICT'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'Create a fee plan (audited); a name no other plan has → else 409',
        body: FeePlanBody,
        response: { 201: FeePlan, ...errors, 409: EnvelopeErrorBody },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await actions.create(request.body, operatorActor(request))),
  );

  app.patch(
    '/api/ops/fee-plans/:id',
    {
      config: { ...A, errors: ['NOT_FOUND', 'CONFLICT'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'Change a fee plan (audited, before and after): sales already created keep their fees; the next ones pay the new rates',
        params: PlanIdParam,
        body: FeePlanPatch,
        response: { 200: FeePlan, ...errors, 409: EnvelopeErrorBody },
      },
    },
    async (request) => actions.update(Number(request.params.id), request.body, operatorActor(request)),
  );

  app.post(
    '/api/ops/accounts/:id/fee-plan',
    {
      config: { ...A, errors: ['NOT_FOUND', 'INVALID_STATUS'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'Put an account on a fee plan (audited): its sales from now on are priced by it; a closed account keeps its plan (409)',
        params: AccountIdParam,
        body: Type.Object(
          { planId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) },
          { additionalProperties: false },
        ),
        response: { 200: FeePlan, ...errors, 409: EnvelopeErrorBody },
      },
    },
    async (request) => actions.assign(Number(request.params.id), request.body.planId, operatorActor(request)),
  );
}
