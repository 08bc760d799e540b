import type { Db } from '../platform/db/db.js';
import { conflict, notFound } from '../platform/http/errors.js';
import type { PublicId } from '../platform/http/public-ids.js';
import { findWithdrawal, type WithdrawalRow } from './data.js';
import { transition } from './state.js';

/** Operator cancel of a PENDING withdrawal: funds back to available, CANCELLED, withdrawal.canceled. */
export async function cancelCashout(db: Db, id: PublicId): Promise<WithdrawalRow> {
  const found = await findWithdrawal(db, id, null);
  if (!found) throw notFound(`no withdrawal ${id.kind === 'uuid' ? id.uuid : id.id}`);
  const result = await db.tx((tx) => transition(tx, found.id, 'cancel'));
  if (result.changed) return result.withdrawal;
  const current = result.withdrawal ?? found;
  if (current.status === 'PENDING') {
    throw conflict(
      `withdrawal ${current.id} is being submitted to the payout provider and can no longer be cancelled (the provider may pay it); 'gateway cashouts retry' sends it again under the same reference`,
    );
  }
  throw conflict(`withdrawal ${current.id} is ${current.status}; only a PENDING withdrawal can be cancelled`);
}
