import { Type } from 'typebox';
import { accountOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import { sendJsonText } from '../platform/http/json-reply.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { parsePublicId } from '../platform/ids/public-ids.js';
import type { SaleSettler } from '../sales/index.js';
import { IdPath, recordAmountDueNow, Sale } from '../sales/index.js';
import {
  decideSandboxCashout,
  lookupView,
  ownedWithdrawal,
  type PayoutProviders,
  WithdrawalLookup,
} from '../withdrawals/index.js';
import { sandboxId } from './ids.js';

/**
 * The panel's sandbox: whether it is on (the panel shows its buttons only then), "Simular pagamento" on a
 * pending sale, which runs the processor callback's own path, and "Simular conclusão" / "Simular recusa" on a
 * withdrawal at the sandbox provider, which run POST /api/sandbox/cashouts/{id}/result's own code (decisions.md,
 * Sandbox).
 */
export async function sandboxPanelRoutes(
  app: Http,
  deps: {
    db: Db;
    requireSession: AuthHook;
    settler: SaleSettler | null;
    /** With the sandbox on: its payout provider's results. */
    cashouts: { db: Db; providers: PayoutProviders } | null;
  },
): Promise<void> {
  app.get(
    '/api/panel/sandbox',
    {
      // public: the login page shows "Modo de teste" too, and whether the sandbox is on is no secret
      config: { errorShape: 'envelope', permission: 'public' },
      schema: {
        tags: ['panel'],
        summary: "Whether this gateway's sandbox is on (test helpers; always off in production)",
        response: { 200: Type.Object({ enabled: Type.Boolean() }) },
      },
    },
    async () => ({ enabled: deps.settler !== null }),
  );
  const cashouts = deps.cashouts;
  if (cashouts) {
    app.post(
      '/api/withdrawals/:id/simulate-result',
      {
        config: { errorShape: 'envelope', permission: 'integrations', errors: ['CONFLICT', 'NOT_FOUND'] },
        onRequest: deps.requireSession,
        schema: {
          tags: ['panel'],
          summary:
            'Sandbox: the payout provider completes or rejects a PROCESSING withdrawal (as POST /api/sandbox/cashouts/{id}/result)',
          params: Type.Object({ id: Type.String({ description: 'Withdrawal uuid or numeric id' }) }),
          body: Type.Object({ result: Type.Union([Type.Literal('COMPLETED'), Type.Literal('REJECTED')]) }),
          response: {
            200: WithdrawalLookup,
            ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404, 409]),
          },
        },
      },
      async (request) => {
        const row = await ownedWithdrawal(cashouts.db, accountOf(request), parsePublicId(request.params.id));
        return lookupView(
          await decideSandboxCashout(cashouts.db, cashouts.providers.sandbox, row, request.body.result),
        );
      },
    );
  }
  const settler = deps.settler;
  if (!settler) return;

  app.post(
    '/api/sales/:id/simulate-payment',
    {
      config: { errorShape: 'envelope', permission: 'integrations', errors: ['CONFLICT', 'NOT_FOUND'] },
      onRequest: deps.requireSession,
      schema: {
        tags: ['panel'],
        summary: 'Sandbox: a pending sale is paid, as its processor would report it (sale.paid is notified)',
        params: IdPath,
        response: {
          200: Sale,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403, 404, 409]),
        },
      },
    },
    async (request, reply) => {
      // a refused transition (a sale no longer pending) is a 409 CONFLICT that writes nothing; what is paid is
      // what the sale asks today (a boleto's discount, or its fine and interest)
      await recordAmountDueNow(deps.db, sandboxId(request.params.id), accountOf(request));
      const { sale } = await settler.settle({
        ref: sandboxId(request.params.id),
        accountId: accountOf(request),
        status: 'PAGO',
      });
      return sendJsonText(reply, 200, sale.public_json);
    },
  );
}
