import { Type } from 'typebox';
import { notFound, unauthorized } from '../../platform/errors/app-error.js';
import { EnvelopeErrorBody, errorAnswers } from '../../platform/http/error-schemas.js';
import { keepRawJson } from '../../platform/http/json-body.js';
import type { Http } from '../../platform/http/types.js';
import { SaleStatusSchema } from '../schemas.js';
import type { SaleSettler } from '../settlement/settler.js';
import type { SaleStatus } from '../settlement/status-machine.js';
import { applyProcessorStatus } from './callbacks.js';
import type { ProcessorRegistry } from './processor.js';

const CallbackBody = Type.Object({
  // no NUL: PostgreSQL text cannot hold one, so no sale has such a reference (400 like any bad field)
  externalTransactionId: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' }),
  status: SaleStatusSchema,
});
const CallbackResult = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  status: Type.String(),
  changed: Type.Boolean(),
});

/**
 * POST /api/providers/{processor}/sales/callback: a processor reports a sale's new status. The signature is
 * checked over the raw bytes before the body is believed (signature checks run before body validation); a bad one changes nothing (401).
 */
export async function processorCallbackRoutes(
  app: Http,
  deps: { settler: SaleSettler; processors: ProcessorRegistry },
): Promise<void> {
  keepRawJson(app); // encapsulated: only this plugin's routes keep the raw bytes the signature covers

  app.post(
    '/api/providers/:processor/sales/callback',
    {
      config: { errorShape: 'envelope', errors: ['CONFLICT', 'NOT_FOUND', 'UNAUTHORIZED'] },
      schema: {
        summary: "A payment processor reports a sale's status (signed)",
        tags: ['processors'],
        params: Type.Object({ processor: Type.String({ maxLength: 50 }) }),
        body: CallbackBody,
        response: {
          200: CallbackResult,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 404, 409]),
        },
      },
      preValidation: async (request) => {
        const { processor } = request.params as { processor: string };
        const adapter = deps.processors.get(processor);
        if (!adapter) throw notFound(`unknown processor ${processor}`);
        if (!request.rawBody || !adapter.verifyCallback(request.rawBody, request.headers, Date.now())) {
          throw unauthorized('Invalid processor signature');
        }
      },
    },
    async (request) => {
      const { externalTransactionId } = request.body;
      const status = request.body.status as SaleStatus; // validated by the enum schema
      const { processor } = request.params;
      const replayKey = deps.processors.get(processor)!.replayKey(request.headers);
      const result = await applyProcessorStatus(
        deps.settler,
        processor,
        externalTransactionId,
        status,
        replayKey,
      );
      return {
        id: result.sale.id,
        uuid: result.sale.uuid,
        status: result.sale.status,
        changed: result.outcome === 'applied',
      };
    },
  );
}
