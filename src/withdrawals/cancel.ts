import type { Db } from '../platform/db/db.js';
import { conflict, notFound } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { findWithdrawal, type WithdrawalRow } from './data.js';
import { transition } from './state.js';

/** Operator cancel of a PENDING withdrawal: funds back to available, CANCELLED, withdrawal.canceled. */
export async function cancelWithdrawal(db: Db, id: PublicId): Promise<WithdrawalRow> {
  const found = await findWithdrawal(db, id, null);
  if (!found) throw notFound(`no withdrawal ${id.kind === 'uuid' ? id.uuid : id.id}`);
  const result = await db.tx(async (tx) => {
    // one awaiting approval is decided by the cancel: nobody can approve it afterwards
    await tx.query(
      `UPDATE withdrawals SET approval_status = 'declined', approval_decided_by = 'operator', approval_decided_at = now()
        WHERE id = $1 AND approval_status = 'awaiting' AND status = 'PENDING'`,
      [found.id],
    );
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
