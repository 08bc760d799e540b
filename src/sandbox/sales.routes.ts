import { Type } from 'typebox';
import { merchantOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { EnvelopeErrorBody, IpAccessErrorBody } from '../platform/http/error-schemas.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import type { Queue } from '../platform/jobs/queue.js';
import type { SaleProcessor, SaleSettler, SaleStatus } from '../sales/index.js';
import { createSandboxSale, IdPath, Sale, type SandboxSaleInput, saleJson } from '../sales/index.js';
import { sandboxId } from './ids.js';
import { SandboxSaleBody, StatusBody } from './schemas.js';

export interface SandboxDeps {
  db: Db;
  queue: Queue;
  apiKey: AuthHook;
  processor: SaleProcessor;
  settler: SaleSettler;
}

const errors = {
  400: EnvelopeErrorBody,
  401: EnvelopeErrorBody,
  403: Type.Union([IpAccessErrorBody, EnvelopeErrorBody]),
  404: EnvelopeErrorBody,
  409: EnvelopeErrorBody,
};

export async function sandboxSalesRoutes(app: Http, deps: SandboxDeps): Promise<void> {
  app.post(
    '/api/sandbox/sales',
    {
      // open to an account waiting for review (it tries its integration); refused to a suspended one
      config: {
        errorShape: 'envelope',
        keyScope: 'charges',
        errors: ['ACCOUNT_NOT_ACTIVE', 'ACCOUNT_SUSPENDED'],
      },
      onRequest: deps.apiKey,
      schema: {
        summary:
          'Sandbox: create a PENDENTE sale as a processor would report it (an account waiting for review may; a suspended one may not)',
        tags: ['sandbox'],
        body: SandboxSaleBody,
        response: { 201: Sale, ...errors },
      },
    },
    async (request, reply) => {
      const accountId = merchantOf(request).accountId;
      // The type provider does not narrow enum schemas; the schema has validated the body.
      const input = request.body as unknown as SandboxSaleInput;
      const sale = await createSandboxSale(deps.db, deps.processor, accountId, input);
      return sendJsonText(reply, 201, await saleJson(deps.db, sale.id));
    },
  );

  app.post(
    '/api/sandbox/sales/:id/status',
    {
      config: { errorShape: 'envelope', keyScope: 'charges', errors: ['CONFLICT', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary: "Sandbox: move a sale to a status, as its processor's callback would",
        tags: ['sandbox'],
        params: IdPath,
        body: StatusBody,
        response: { 200: Sale, ...errors },
      },
    },
    async (request, reply) => {
      // What a processor callback runs, the sale named by its id and limited to the caller's
      const { sale } = await deps.settler.settle({
        ref: sandboxId(request.params.id),
        accountId: merchantOf(request).accountId,
        status: request.body.status as SaleStatus,
      });
      return sendJsonText(reply, 200, sale.public_json);
    },
  );
}
