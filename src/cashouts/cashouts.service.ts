import { randomUUID } from 'node:crypto';
import { postEntry } from '../ledger/ledger.js';
import type { Db, Queryable } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import type { PublicId } from '../platform/ids.js';
import type { Queue } from '../platform/queue.js';
import { cashoutFees } from './fees.js';
import {
  IdempotencyRace,
  inUse,
  replayCheck,
  type StoredOutcome,
  storedOutcome,
  storeOutcome,
} from './idempotency.js';
import { type CashoutRequest, requestHash } from './request.js';
import {
  findWithdrawal,
  findWithdrawalById,
  insertWithdrawal,
  type WithdrawalRow,
} from './withdrawals.data.js';

export const MIN_CASHOUT_CENTS = 10_000;
export const MAX_CASHOUT_CENTS = 10_000_000;

interface Context {
  cashout_fee_fixed: number;
  cashout_fee_percent_e4: number;
  api_cashout_enabled: boolean;
  transfers_enabled: boolean;
  global_switch: string | null;
  locked: boolean;
  next_id: number;
  request_hash: string | null;
  withdrawal_id: number | null;
  response_body: string | null;
}

export interface Created {
  withdrawal: WithdrawalRow;
  replayed: boolean;
}

/**
 * POST /api/public/cashout after body validation. Order of checks: Idempotency-Key (in use 409, reused
 * 422, replay), switches (403), minimum/maximum (422), fees, balance (422). One transaction: the guarded
 * debit available → blocked, the withdrawal, its payout job and the key's outcome commit together.
 */
export async function createCashout(
  db: Db,
  queue: Queue,
  accountId: number,
  req: CashoutRequest,
  idempotencyKey: string | null,
): Promise<Created> {
  const hash = requestHash(req);
  for (let attempt = 0; ; attempt++) {
    try {
      const outcome = await db.tx((tx) => attemptCreate(tx, queue, accountId, req, idempotencyKey, hash));
      if (outcome instanceof AppError) throw outcome;
      return outcome;
    } catch (err) {
      if (!(err instanceof IdempotencyRace) || attempt >= 3) throw err;
    }
  }
}

async function attemptCreate(
  tx: Queryable,
  queue: Queue,
  accountId: number,
  req: CashoutRequest,
  key: string | null,
  hash: string,
): Promise<Created | AppError> {
  // One round trip: the account's switches and fees, the global switch, the key's lock and stored outcome,
  // and the id the withdrawal will have (so its ledger entry can be written before the row).
  const [ctx] = await tx.query<Context>(
    `SELECT a.cashout_fee_fixed, a.cashout_fee_percent_e4, a.api_cashout_enabled, a.transfers_enabled,
            (SELECT value FROM settings WHERE key = 'api_withdrawals') AS global_switch,
            CASE WHEN $2::text IS NULL THEN true
                 ELSE pg_try_advisory_xact_lock(hashtextextended(a.id::text || ':' || $2, 727274010)) END AS locked,
            i.request_hash, i.withdrawal_id, i.response_body,
            nextval('withdrawals_id_seq') AS next_id
       FROM accounts a
       LEFT JOIN cashout_idempotency i ON i.account_id = a.id AND i.key = $2 AND i.expires_at > now()
      WHERE a.id = $1`,
    [accountId, key],
  );
  if (!ctx) throw new AppError('UNAUTHORIZED', 'Unknown account');
  if (!ctx.locked) throw inUse();
  const stored = storedOutcome(ctx);
  if (stored) return replay(tx, stored, hash);

  try {
    const withdrawal = await debitAndInsert(tx, accountId, req, ctx);
    await queue.send(tx, 'payouts.submit', { withdrawalId: withdrawal.id });
    if (key) await storeOutcome(tx, accountId, key, hash, { withdrawalId: withdrawal.id });
    return { withdrawal, replayed: false };
  } catch (err) {
    // Business refusals are outcomes of the key too; nothing else was written before them.
    if (!(err instanceof AppError) || !key) throw err;
    await storeOutcome(tx, accountId, key, hash, { error: err });
    return err;
  }
}

async function replay(tx: Queryable, stored: StoredOutcome, hash: string): Promise<Created> {
  replayCheck(stored, hash);
  const withdrawal = await findWithdrawalById(tx, stored.withdrawalId!);
  if (!withdrawal) throw new Error(`idempotency record points at missing withdrawal ${stored.withdrawalId}`);
  return { withdrawal, replayed: true };
}

async function debitAndInsert(
  tx: Queryable,
  accountId: number,
  req: CashoutRequest,
  ctx: Context,
): Promise<WithdrawalRow> {
  if (ctx.global_switch === 'off') {
    throw new AppError('API_WITHDRAWAL_DISABLED_GLOBALLY', 'API withdrawals are disabled');
  }
  if (!ctx.api_cashout_enabled) {
    throw new AppError('API_WITHDRAWAL_DISABLED_GLOBALLY', 'API withdrawals are disabled for this user');
  }
  if (!ctx.transfers_enabled)
    throw new AppError('TRANSFER_NOT_ALLOWED', 'Transfers are not allowed for this user');
  if (req.amountCents < MIN_CASHOUT_CENTS) {
    throw new AppError('MINIMUM_VALUE', 'The minimum cashout amount is 100.00');
  }
  if (req.amountCents > MAX_CASHOUT_CENTS) {
    throw new AppError('MAXIMUM_VALUE', 'The maximum cashout amount is 100000.00');
  }
  const fees = cashoutFees(req.amountCents, ctx.cashout_fee_fixed, ctx.cashout_fee_percent_e4);
  if (fees.net <= 0) throw new AppError('GENERAL_ERROR', 'The amount does not cover the cashout fees');

  await postEntry(tx, {
    kind: 'withdrawal.create',
    refType: 'withdrawal',
    refId: ctx.next_id,
    guardAvailable: true,
    postings: [
      { target: { accountId, bucket: 'available' }, amount: -req.amountCents },
      { target: { accountId, bucket: 'blocked' }, amount: req.amountCents },
    ],
  });
  return insertWithdrawal(tx, {
    id: ctx.next_id,
    uuid: randomUUID(),
    accountId,
    amount: req.amountCents,
    feeFixed: fees.fixed,
    feeVariable: fees.variable,
    netAmount: fees.net,
    pixKey: req.pixKey,
    pixKeyType: req.pixKeyType,
  });
}

/** GET /api/public/cashout/{id}: another account's withdrawal looks missing (404). */
export async function getCashout(
  q: Queryable,
  accountId: number,
  id: PublicId | null,
): Promise<WithdrawalRow> {
  const row = id ? await findWithdrawal(q, id, accountId) : null;
  if (!row) throw notFound('Withdrawal not found');
  return row;
}
