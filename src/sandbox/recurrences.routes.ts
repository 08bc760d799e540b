import { Type } from 'typebox';
import { merchantOf } from '../auth/index.js';
import { type CycleRefusal, createRecurrence, debitCycle } from '../pix/index.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { Http } from '../platform/http/types.js';
import { customerFacts } from '../risk/index.js';
import type { Customer } from '../sales/index.js';
import { Sale, saleJson } from '../sales/index.js';
import type { SandboxDeps } from './sales.routes.js';
import { IdRecPath, RecurrenceBody, sandboxErrors } from './schemas.js';

const Recurrence = Type.Object({
  idRec: Type.String(),
  contrato: Type.String(),
  journey: Type.Integer(),
  sale: Type.Union([Sale, Type.Null()]),
});
const errors = sandboxErrors([400, 401, 404]);

export async function sandboxRecurrenceRoutes(app: Http, deps: SandboxDeps): Promise<void> {
  // a cycle is its payer's charge: the risk rules decide it as a Pix of the same payer (the one admission)
  const refusalFrom =
    (ip: string): CycleRefusal =>
    (rec) => {
      const risk = deps.risk?.decide({
        method: 'PIX',
        amountCents: rec.amount ?? 0,
        ...customerFacts(rec.customer),
        ip,
      });
      return risk?.decision === 'block' ? risk : null;
    };
  app.post(
    '/api/sandbox/recurrences',
    {
      config: {
        errorShape: 'envelope',
        keyScope: 'charges',
        errors: ['ACCOUNT_NOT_ACTIVE', 'ACCOUNT_SUSPENDED'],
      },
      onRequest: deps.apiKey,
      schema: {
        summary:
          'Sandbox: an approved Pix Automático mandate (journeys 3 and 4 debit its first cycle, refused RISK_BLOCKED when a risk rule blocks the payer)',
        tags: ['sandbox'],
        body: RecurrenceBody,
        response: { 201: Recurrence, ...errors },
      },
    },
    async (request, reply) => {
      const { recurrence, sale } = await createRecurrence(
        deps.db,
        deps.queue,
        deps.processor,
        merchantOf(request).accountId,
        { ...request.body, customer: request.body.customer as Customer },
        refusalFrom(request.ip),
      );
      return reply.code(201).send({
        idRec: recurrence.id_rec,
        contrato: recurrence.contrato,
        journey: recurrence.journey,
        sale: sale ? JSON.parse(await saleJson(deps.db, sale.id)) : null,
      });
    },
  );

  app.post(
    '/api/sandbox/recurrences/:idRec/cycles',
    {
      config: {
        errorShape: 'envelope',
        keyScope: 'charges',
        errors: ['NOT_FOUND', 'ACCOUNT_NOT_ACTIVE', 'ACCOUNT_SUSPENDED'],
      },
      onRequest: deps.apiKey,
      schema: {
        summary:
          'Sandbox: a paid cycle of a Pix Automático mandate (a payer a risk rule blocks: the cycle is refused, RISK_BLOCKED)',
        tags: ['sandbox'],
        params: IdRecPath,
        response: { 201: Sale, ...errors },
      },
    },
    async (request, reply) => {
      const sale = await debitCycle(
        deps.db,
        deps.queue,
        deps.processor,
        merchantOf(request).accountId,
        request.params.idRec,
        refusalFrom(request.ip),
      );
      return sendJsonText(reply, 201, await saleJson(deps.db, sale.id));
    },
  );
}
