import { Type } from 'typebox';
import { operatorActor } from '../operators/index.js';
import type { Db } from '../platform/db/db.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import {
  listRiskRules,
  RiskRule,
  RiskRuleActions,
  RiskRuleBody,
  RiskRuleList,
  type RiskRules,
} from '../risk/index.js';

const A = { errorShape: 'envelope' as const, opsRole: 'risk' as const };
const errors = {
  ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404]),
};
const RuleIdParam = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) });

/** Risk rules and blocklists (risk operators): list, write, delete; every change audited and in force at once. */
export async function consoleRiskRuleRoutes(
  app: Http,
  deps: { db: Db; requireOperator: AuthHook; riskRules: RiskRules },
): Promise<void> {
  const actions = new RiskRuleActions(deps.db, deps.riskRules);

  app.get(
    '/api/ops/risk-rules',
    {
      config: A,
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'Every risk rule, oldest first',
        response: { 200: RiskRuleList, ...errors },
      },
    },
    async () => ({ data: await listRiskRules(deps.db) }),
  );

  app.post(
    '/api/ops/risk-rules',
    {
      config: A,
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'Write a risk rule (audited): every condition given must hold; block refuses the sale (RISK_BLOCKED), review holds a card authorization for the review queue',
        body: RiskRuleBody,
        response: { 201: RiskRule, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await actions.create(request.body, operatorActor(request))),
  );

  app.delete(
    '/api/ops/risk-rules/:id',
    {
      config: { ...A, errors: ['NOT_FOUND'] },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary: 'Delete a risk rule (audited): sales decided by it keep their decision',
        params: RuleIdParam,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      await actions.delete(Number(request.params.id), operatorActor(request));
      return reply.code(204).send(null);
    },
  );
}
