import { type Actor, recordAudit } from '../audit/index.js';
import type { Db } from '../platform/db/db.js';
import { conflict, notFound } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { recordApprovalDecision } from './approval/decide.js';
import { findWithdrawal, type WithdrawalRow } from './data.js';
import { transition } from './state.js';

/**
 * Cancel of a PENDING withdrawal: funds back to available, CANCELLED, withdrawal.canceled. An operator's
 * (`gateway cashouts cancel`) by default; `by` another's (the merchant's own key, in the sandbox), who is then
 * the one who declined it if it awaited approval, in the account's audit log too.
 */
export async function cancelWithdrawal(
  db: Db,
  id: PublicId,
  by?: { decidedBy: string; actor: Actor },
): Promise<WithdrawalRow> {
  const found = await findWithdrawal(db, id, null);
  if (!found) throw notFound(`no withdrawal ${id.kind === 'uuid' ? id.uuid : id.id}`);
  const result = await db.tx(async (tx) => {
    // one awaiting approval is decided by the cancel: nobody can approve it afterwards
    const declined = await recordApprovalDecision(tx, found.id, 'declined', by?.decidedBy ?? 'operator');
    if (by && declined) {
      await recordAudit(tx, Number(found.account_id), by.actor, {
        action: 'withdrawal.declined',
        target: `withdrawal:${found.uuid}`,
      });
    }
    return transition(tx, found.id, 'cancel');
  });
  if (result.changed) return result.withdrawal;
  const current = result.withdrawal ?? found;
  if (current.status === 'PENDING') {
    throw conflict(
      `withdrawal ${current.id} is being submitted to the payout provider and can no longer be cancelled (the provider may pay it); 'gateway cashouts retry' sends it again under the same reference`,
    );
  }
  throw conflict(`withdrawal ${current.id} is ${current.status}; only a PENDING withdrawal can be cancelled`);
}
