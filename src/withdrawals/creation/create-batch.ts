import { randomUUID } from 'node:crypto';
import { recordAuditRows } from '../../audit/index.js';
import { postBucketTransfers } from '../../ledger/index.js';
import type { Queryable } from '../../platform/db/db.js';
import { AppError, inUse } from '../../platform/errors/app-error.js';
import type { Queue } from '../../platform/jobs/queue.js';
import type { WithdrawalRow } from '../data.js';
import { amountFees } from '../fees.js';
import type { WithdrawalRequest } from '../request.js';
import {
  type Accepted,
  type AccountContext,
  insertWithdrawalsAndKeys,
  loadContext,
} from './create-batch.data.js';
import { replayCheck, storedOutcome } from './idempotency.js';
import type { ItemOutcome, RecipientRef, WithdrawalItem } from './types.js';

/** The optimistic read of the balance was overtaken by another transaction: run again with lockFirst. */
export class StaleBalance extends Error {}

/**
 * Creates the cashouts of one account in ONE transaction; items are decided in order, as if sent one by
 * one. Order of checks per item: Idempotency-Key (a stored outcome first: reused 422 or replay; else in use
 * 409 while another transaction holds the key), switches (403), minimum/maximum (422), fees, balance (422).
 *
 * Optimistic (default): the balance is read without a lock and the guarded debit is the last statement,
 * so the hot balance row stays locked only for that statement and the commit. If the guard fails (another
 * transaction spent the money meanwhile) the batch throws StaleBalance and is run again with
 * `lockFirst`, which locks the balance row before deciding, so its decisions are exact.
 *
 * With `recipient` the batch is that recipient's cashouts (split payments): the same rules, fees, switches
 * and keys as the account's own, the balance debited the recipient's.
 */
export async function createBatch(
  tx: Queryable,
  queue: Queue,
  accountId: number,
  items: WithdrawalItem[],
  lockFirst = false,
  recipient: RecipientRef | null = null,
): Promise<ItemOutcome[]> {
  // one read: an account without balance rows yet (made by `accounts create` and by its first ledger entry)
  // has nothing available, which the checks below refuse like any other shortfall
  const ctx = await loadContext(tx, accountId, items, lockFirst, recipient);
  if (!ctx) throw new AppError('UNAUTHORIZED', 'Unknown account');

  const outcomes: (ItemOutcome | { replayOf: number } | null)[] = [];
  // Business refusals are outcomes of their key; key conflicts and replays are not stored again.
  const toStore: boolean[] = [];
  const accepted: Accepted[] = [];
  const seenKeys = new Set<string>();
  let available = ctx.available ?? 0;
  items.forEach((item, index) => {
    const k = ctx.items[index]!;
    toStore.push(false);
    try {
      // a finished key answers its stored outcome whatever else holds it: only a key with none is in flight
      const stored = storedOutcome(k);
      if (stored) {
        replayCheck(stored, item.hash);
        outcomes.push({ replayOf: stored.withdrawalId! });
        return;
      }
      if (item.key !== null && !k.locked) throw inUse();
      // a fresh key used twice in one shared transaction: the first is still in flight
      if (item.key !== null && seenKeys.has(item.key)) throw inUse();
      if (item.key !== null) seenKeys.add(item.key);
      toStore[index] = item.key !== null;
      const fees = checkRules(ctx, item.req);
      if (item.req.amountCents > available) {
        throw new AppError('INSUFFICIENT_BALANCE', 'Insufficient available balance');
      }
      available -= item.req.amountCents;
      const awaiting =
        ctx.approval_threshold !== null && item.req.amountCents >= Number(ctx.approval_threshold);
      accepted.push({
        index,
        row: {
          id: k.next_id,
          uuid: randomUUID(),
          account_id: accountId,
          amount: item.req.amountCents,
          fee_fixed: fees.fixed,
          fee_variable: fees.variable,
          net_amount: fees.net,
          pix_key: item.req.pixKey,
          pix_key_type: item.req.pixKeyType,
          approval_status: awaiting ? 'awaiting' : null,
          approval_requested_by: awaiting ? (item.requestedBy ?? 'unknown') : null,
        },
      });
      outcomes.push(null);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      outcomes.push(err);
    }
  });

  const held = ctx.payouts_held;
  const rows = await insertWithdrawalsAndKeys(
    tx,
    accountId,
    items,
    outcomes,
    toStore,
    accepted,
    held,
    recipient,
  );
  // One payout job per shared transaction: the worker submits its withdrawals one by one. One awaiting
  // approval is sent once approved (approval/decide.ts), and its approvers are told now. A held account's
  // wait in AWAITING_REVIEW: an operator's release queues them (review.ts).
  const ids = held ? [] : accepted.filter((a) => a.row.approval_status === null).map((a) => a.row.id);
  if (ids.length > 0) await queue.send(tx, 'payouts.submit', { withdrawalIds: ids });
  const awaiting = accepted.filter((a) => a.row.approval_status === 'awaiting');
  if (awaiting.length > 0) {
    await queue.send(tx, 'withdrawals.ask-approval', { withdrawalIds: awaiting.map((a) => a.row.id) });
  }
  try {
    await postBucketTransfers(tx, {
      accountId,
      recipientId: recipient?.id ?? null,
      from: 'available',
      to: 'blocked',
      kind: 'withdrawal.create',
      refType: 'withdrawal',
      items: accepted.map((a) => ({ refId: a.row.id, amount: a.row.amount })),
      guardAvailable: true,
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE') throw new StaleBalance();
    throw err;
  }

  await recordAuditRows(
    tx,
    accepted.flatMap((a) => {
      const actor = items[a.index]!.actor;
      return actor
        ? [
            {
              accountId,
              actor,
              entry: { action: 'withdrawal.created' as const, target: `withdrawal:${a.row.uuid}` },
            },
          ]
        : [];
    }),
  );

  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const a of accepted) outcomes[a.index] = { withdrawal: byId.get(a.row.id)!, replayed: false };
  const replayIds = outcomes.flatMap((o) => (o && 'replayOf' in o ? [o.replayOf] : []));
  const replayed = replayIds.length
    ? await tx.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = ANY($1::bigint[])', [replayIds])
    : [];
  const replayById = new Map(replayed.map((r) => [r.id, r]));
  return outcomes.map((o) => {
    if (o && 'replayOf' in o) return { withdrawal: replayById.get(o.replayOf)!, replayed: true };
    return o!;
  });
}

function checkRules(ctx: AccountContext, req: WithdrawalRequest) {
  if (ctx.global_switch === 'off') {
    throw new AppError('API_WITHDRAWAL_DISABLED_GLOBALLY', 'API withdrawals are disabled');
  }
  if (!ctx.api_cashout_enabled) {
    throw new AppError('API_WITHDRAWAL_DISABLED_GLOBALLY', 'API withdrawals are disabled for this user');
  }
  if (!ctx.transfers_enabled) {
    throw new AppError('TRANSFER_NOT_ALLOWED', 'Transfers are not allowed for this user');
  }
  return amountFees(req.amountCents, ctx.cashout_fee_fixed, ctx.cashout_fee_percent_e4);
}
