import { Type } from 'typebox';
import { merchantOf } from '../auth/index.js';
import { createRecurrence, debitCycle } from '../pix/index.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { Http } from '../platform/http/types.js';
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
  app.post(
    '/api/sandbox/recurrences',
    {
      config: { errorShape: 'envelope', keyScope: 'charges' },
      onRequest: deps.apiKey,
      schema: {
        summary: 'Sandbox: an approved Pix Automático mandate',
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
      config: { errorShape: 'envelope', keyScope: 'charges', errors: ['NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary: 'Sandbox: a paid cycle of a Pix Automático mandate',
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
      );
      return sendJsonText(reply, 201, await saleJson(deps.db, sale.id));
    },
  );
}
