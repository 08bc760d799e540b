import { Type } from 'typebox';
import { apiKeyActor } from '../audit/index.js';
import { merchantOf } from '../auth/index.js';
import type { Db } from '../platform/db/db.js';
import { conflict } from '../platform/errors/app-error.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { parsePublicId } from '../platform/ids/public-ids.js';
import type { PayoutProviders } from '../withdrawals/index.js';
import {
  cancelWithdrawal,
  decideSandboxCashout,
  lookupView,
  ownedWithdrawal,
  transition,
  WithdrawalLookup,
} from '../withdrawals/index.js';
import { sandboxErrors } from './schemas.js';

const WithdrawalId = Type.Object({ id: Type.String({ description: 'Withdrawal uuid or numeric id' }) });

/**
 * The sandbox payout provider's result: it signs a callback exactly as the provider would and hands it to
 * the same handler as POST /api/providers/sandbox/payouts/callback (decideSandboxCashout, which the panel's
 * buttons and the sandbox's own completion after SANDBOX_CASHOUT_DELAY_MS use too).
 */
export async function sandboxCashoutRoutes(
  app: Http,
  deps: { db: Db; apiKey: AuthHook; providers: PayoutProviders },
): Promise<void> {
  app.post(
    '/api/sandbox/cashouts/:id/result',
    {
      config: { errorShape: 'envelope', errors: ['CONFLICT', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        summary: 'Sandbox: the payout provider completes or rejects a PROCESSING withdrawal',
        tags: ['sandbox'],
        security: [{ publicKey: [], privateKey: [] }],
        params: WithdrawalId,
        body: Type.Object({ result: Type.Union([Type.Literal('COMPLETED'), Type.Literal('REJECTED')]) }),
        response: { 200: WithdrawalLookup, ...sandboxErrors([400, 401, 404, 409]) },
      },
    },
    async (request) => {
      const row = await ownedWithdrawal(
        deps.db,
        merchantOf(request).accountId,
        parsePublicId(request.params.id),
      );
      return lookupView(
        await decideSandboxCashout(deps.db, deps.providers.sandbox, row, request.body.result),
      );
    },
  );

  // the merchant's own cancel of a withdrawal not yet sent (what an operator's `gateway cashouts cancel` does)
  app.post(
    '/api/sandbox/cashouts/:id/cancel',
    {
      config: { errorShape: 'envelope', errors: ['CONFLICT', 'NOT_FOUND'] },
      onRequest: deps.apiKey,
      schema: {
        tags: ['sandbox'],
        summary:
          'Sandbox: cancel a withdrawal the sandbox provider has not paid (PENDING, or PROCESSING there): withdrawal.canceled',
        security: [{ publicKey: [], privateKey: [] }],
        params: WithdrawalId,
        response: { 200: WithdrawalLookup, ...sandboxErrors([401, 404, 409]) },
      },
    },
    async (request) => {
      const row = await ownedWithdrawal(
        deps.db,
        merchantOf(request).accountId,
        parsePublicId(request.params.id),
      );
      // already sent to the sandbox provider: it gives the order up (it pays only when told to)
      if (row.status === 'PROCESSING' && row.provider === deps.providers.sandbox.name) {
        const result = await deps.db.tx((tx) => transition(tx, row.id, 'withdraw'));
        if (!result.changed)
          throw conflict(`Withdrawal is ${result.withdrawal?.status}; it can no longer be cancelled`);
        return lookupView(result.withdrawal);
      }
      // the merchant's key cancels it: the one who declined it, if it awaited approval
      const key = merchantOf(request);
      return lookupView(
        await cancelWithdrawal(
          deps.db,
          { kind: 'numeric', id: row.id },
          { decidedBy: `api_key:${key.publicKey}`, actor: apiKeyActor(request, key) },
        ),
      );
    },
  );
}
