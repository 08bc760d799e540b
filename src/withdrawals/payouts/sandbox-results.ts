import type { Db } from '../../platform/db/db.js';
import { conflict } from '../../platform/errors/app-error.js';
import type { WithdrawalRow } from '../data.js';
import { type CallbackOutcome, handlePayoutCallback } from './payouts.js';
import type { PayoutResult } from './provider.js';
import type { SandboxPayoutProvider } from './sandbox-provider.js';

/**
 * The one door by which a sandbox payout ends: the sandbox provider decides it (once: a payout already decided
 * keeps its first result) and its signed callback goes to the callback's own handler, which moves the withdrawal
 * through the state machine (withdrawal.completed or withdrawal.rejected, once). Used by
 * POST /api/sandbox/cashouts/{id}/result, the panel's "Simular conclusão" / "Simular recusa" and the timer that
 * completes a sandbox payout by itself.
 */
export async function applySandboxResult(
  db: Db,
  sandbox: SandboxPayoutProvider,
  reference: string,
  result: PayoutResult['result'],
): Promise<CallbackOutcome & { result: PayoutResult['result']; decidedNow: boolean }> {
  const callback = await sandbox.decide(reference, result);
  const outcome = await handlePayoutCallback(
    db,
    sandbox,
    Buffer.from(callback.body, 'utf8'),
    callback.headers,
  );
  const decided = (JSON.parse(callback.body) as { result: PayoutResult['result'] }).result;
  return { ...outcome, result: decided, decidedNow: callback.decidedNow };
}

/**
 * A merchant's (or the panel's) result for one of its withdrawals at the sandbox provider: 409 CONFLICT unless it
 * is PROCESSING there and this request is what decided it (not the timer, nor an earlier result). The
 * withdrawal's move may be taken by the payout worker's read-back of the provider between the decision and its
 * callback: the decision was this request's all the same, so it is answered with the withdrawal as it ended.
 */
export async function decideSandboxCashout(
  db: Db,
  sandbox: SandboxPayoutProvider,
  row: WithdrawalRow,
  result: PayoutResult['result'],
): Promise<WithdrawalRow> {
  const refused = (status: string) =>
    conflict(`Withdrawal is ${status}; a result applies only to a PROCESSING withdrawal`);
  if (row.status !== 'PROCESSING' || row.provider !== sandbox.name) throw refused(row.status);
  const outcome = await applySandboxResult(db, sandbox, row.uuid, result);
  const ended = outcome.withdrawal.status === (result === 'COMPLETED' ? 'COMPLETED' : 'FAILED');
  if (!(outcome.changed || outcome.decidedNow) || outcome.result !== result || !ended) {
    throw refused(outcome.withdrawal.status);
  }
  return outcome.withdrawal;
}

/**
 * Sandbox payouts sent at least `delayMs` ago and still PROCESSING complete by themselves, as a PSP would pay
 * them: through applySandboxResult, so one already decided (a result route got there first, its callback not
 * applied yet) keeps its own result. Scanned from the database, so a restart loses none; every worker may run it
 * (the decision and the transition are each taken once). Returns how many moved.
 */
export async function completeDueSandboxPayouts(
  db: Db,
  sandbox: SandboxPayoutProvider,
  delayMs: number,
  limit = 100,
): Promise<number> {
  const due = await db.query<{ uuid: string }>(
    `SELECT w.uuid FROM withdrawals w JOIN sandbox_payouts p ON p.reference = w.uuid
      WHERE w.status = 'PROCESSING' AND w.provider = $1
        AND p.created_at <= now() - make_interval(secs => $2::double precision / 1000)
      ORDER BY p.created_at, w.id LIMIT $3`,
    [sandbox.name, delayMs, limit],
  );
  let moved = 0;
  for (const w of due) if ((await applySandboxResult(db, sandbox, w.uuid, 'COMPLETED')).changed) moved++;
  return moved;
}
