import { randomUUID } from 'node:crypto';
import { ensureMerchantLedger, postBucketTransfers } from '../ledger/ledger.js';
import type { Queryable } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { Queue } from '../platform/queue.js';
import { cashoutFees } from './fees.js';
import { IdempotencyRace, inUse, replayCheck, storedOutcome } from './idempotency.js';
import type { CashoutRequest } from './request.js';
import type { WithdrawalRow } from './withdrawals.data.js';

export const MIN_CASHOUT_CENTS = 10_000;
export const MAX_CASHOUT_CENTS = 10_000_000;

export interface CashoutItem {
  req: CashoutRequest;
  key: string | null;
  hash: string;
}

export interface Created {
  withdrawal: WithdrawalRow;
  replayed: boolean;
}

export type ItemOutcome = Created | AppError;

/** The optimistic read of the balance was overtaken by another transaction: run again with lockFirst. */
export class StaleBalance extends Error {}

interface AccountContext {
  cashout_fee_fixed: number;
  cashout_fee_percent_e4: number;
  api_cashout_enabled: boolean;
  transfers_enabled: boolean;
  global_switch: string | null;
  available: number | null;
  items: {
    key: string | null;
    locked: boolean;
    request_hash: string | null;
    withdrawal_id: number | null;
    response_body: string | null;
    next_id: number;
  }[];
}

interface Accepted {
  index: number;
  row: Omit<
    WithdrawalRow,
    'status' | 'provider' | 'external_id' | 'submitting_at' | 'created_at' | 'updated_at' | 'processed_at'
  >;
}

/**
 * Creates the cashouts of one account in ONE transaction; items are decided in order, as if sent one by
 * one. Order of checks per item: Idempotency-Key (in use 409, reused 422, replay), switches (403),
 * minimum/maximum (422), fees, balance (422).
 *
 * Optimistic (default): the balance is read without a lock and the guarded debit is the last statement,
 * so the hot balance row stays locked only for that statement and the commit. If the guard fails (another
 * transaction spent the money meanwhile) the batch throws StaleBalance and is run again with
 * `lockFirst`, which locks the balance row before deciding, so its decisions are exact.
 */
export async function createBatch(
  tx: Queryable,
  queue: Queue,
  accountId: number,
  items: CashoutItem[],
  lockFirst = false,
): Promise<ItemOutcome[]> {
  let ctx = await loadContext(tx, accountId, items, lockFirst);
  if (ctx && ctx.available === null) {
    await ensureMerchantLedger(tx, accountId);
    ctx = await loadContext(tx, accountId, items, lockFirst);
  }
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
      if (item.key !== null && !k.locked) throw inUse();
      const stored = storedOutcome(k);
      if (stored) {
        replayCheck(stored, item.hash);
        outcomes.push({ replayOf: stored.withdrawalId! });
        return;
      }
      // a fresh key used twice in one shared transaction: the first is still in flight
      if (item.key !== null && seenKeys.has(item.key)) throw inUse();
      if (item.key !== null) seenKeys.add(item.key);
      toStore[index] = item.key !== null;
      const fees = checkRules(ctx, item.req);
      if (item.req.amountCents > available) {
        throw new AppError('INSUFFICIENT_BALANCE', 'Insufficient available balance');
      }
      available -= item.req.amountCents;
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
        },
      });
      outcomes.push(null);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      outcomes.push(err);
    }
  });

  const rows = await insertWithdrawalsAndKeys(tx, accountId, items, outcomes, toStore, accepted);
  if (accepted.length > 0) {
    // One payout job per shared transaction: the worker submits its withdrawals one by one.
    const ids = accepted.map((a) => a.row.id);
    await queue.send(tx, 'payouts.submit', { withdrawalId: ids[0]!, withdrawalIds: ids });
  }
  try {
    await postBucketTransfers(tx, {
      accountId,
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

function checkRules(ctx: AccountContext, req: CashoutRequest) {
  if (ctx.global_switch === 'off') {
    throw new AppError('API_WITHDRAWAL_DISABLED_GLOBALLY', 'API withdrawals are disabled');
  }
  if (!ctx.api_cashout_enabled) {
    throw new AppError('API_WITHDRAWAL_DISABLED_GLOBALLY', 'API withdrawals are disabled for this user');
  }
  if (!ctx.transfers_enabled) {
    throw new AppError('TRANSFER_NOT_ALLOWED', 'Transfers are not allowed for this user');
  }
  if (req.amountCents < MIN_CASHOUT_CENTS) {
    throw new AppError('MINIMUM_VALUE', 'The minimum cashout amount is 100.00');
  }
  if (req.amountCents > MAX_CASHOUT_CENTS) {
    throw new AppError('MAXIMUM_VALUE', 'The maximum cashout amount is 100000.00');
  }
  const fees = cashoutFees(req.amountCents, ctx.cashout_fee_fixed, ctx.cashout_fee_percent_e4);
  if (fees.net <= 0) throw new AppError('GENERAL_ERROR', 'The amount does not cover the cashout fees');
  return fees;
}

/**
 * One round trip: the account's fees and switches, the global switch, the available balance (locked until
 * commit with `lock`), and per item its key's lock and stored outcome plus the id its withdrawal will have.
 */
async function loadContext(tx: Queryable, accountId: number, items: CashoutItem[], lock: boolean) {
  const [ctx] = await tx.query<AccountContext>(
    `WITH bal AS (
       SELECT balance FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available' ${lock ? 'FOR UPDATE' : ''}),
     k AS (
       SELECT k.ord, k.key,
              CASE WHEN k.key IS NULL THEN true
                   ELSE pg_try_advisory_xact_lock(hashtextextended($1::text || ':' || k.key, 727274010)) END AS locked,
              i.request_hash, i.withdrawal_id, i.response_body,
              nextval('withdrawals_id_seq') AS next_id
         FROM unnest($2::text[]) WITH ORDINALITY AS k(key, ord)
         LEFT JOIN cashout_idempotency i ON i.account_id = $1 AND i.key = k.key AND i.expires_at > now())
     SELECT a.cashout_fee_fixed, a.cashout_fee_percent_e4, a.api_cashout_enabled, a.transfers_enabled,
            (SELECT value FROM settings WHERE key = 'api_withdrawals') AS global_switch,
            (SELECT balance FROM bal) AS available,
            (SELECT json_agg(json_build_object('key', k.key, 'locked', k.locked, 'request_hash', k.request_hash,
                      'withdrawal_id', k.withdrawal_id, 'response_body', k.response_body, 'next_id', k.next_id)
                      ORDER BY k.ord) FROM k) AS items
       FROM accounts a WHERE a.id = $1`,
    [accountId, items.map((i) => i.key)],
  );
  return ctx ?? null;
}

/** The accepted withdrawals and every key's outcome, in one statement; a key stored meanwhile → race. */
async function insertWithdrawalsAndKeys(
  tx: Queryable,
  accountId: number,
  items: CashoutItem[],
  outcomes: (ItemOutcome | { replayOf: number } | null)[],
  toStore: boolean[],
  accepted: Accepted[],
): Promise<WithdrawalRow[]> {
  const acceptedByIndex = new Map(accepted.map((a) => [a.index, a.row.id]));
  const keyed = items
    .map((item, index) => ({ item, index, outcome: outcomes[index] }))
    .filter((x) => toStore[x.index]);
  if (accepted.length === 0 && keyed.length === 0) return [];
  const col = <T>(f: (a: Accepted['row']) => T) => accepted.map((a) => f(a.row));
  const [result] = await tx.query<{ rows: WithdrawalRow[] | null; stored: number }>(
    `WITH w AS (
       INSERT INTO withdrawals
         (id, uuid, account_id, amount, fee_fixed, fee_variable, net_amount, pix_key, pix_key_type, status)
       SELECT id, uuid, $1, amount, fee_fixed, fee_variable, net_amount, pix_key, pix_key_type, 'PENDING'
         FROM unnest($2::bigint[], $3::uuid[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[], $9::text[])
           AS v(id, uuid, amount, fee_fixed, fee_variable, net_amount, pix_key, pix_key_type)
       RETURNING *),
     i AS (
       INSERT INTO cashout_idempotency
         (account_id, key, request_hash, status_code, withdrawal_id, response_body, expires_at)
       SELECT $1, key, hash, status, wid, body, now() + interval '24 hours'
         FROM unnest($10::text[], $11::text[], $12::int[], $13::bigint[], $14::text[]) AS v(key, hash, status, wid, body)
       ON CONFLICT (account_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
             withdrawal_id = EXCLUDED.withdrawal_id, response_body = EXCLUDED.response_body,
             expires_at = EXCLUDED.expires_at
         WHERE cashout_idempotency.expires_at <= now()
       RETURNING 1)
     SELECT (SELECT json_agg(w) FROM w) AS rows, (SELECT count(*) FROM i)::int AS stored`,
    [
      accountId,
      col((r) => r.id),
      col((r) => r.uuid),
      col((r) => r.amount),
      col((r) => r.fee_fixed),
      col((r) => r.fee_variable),
      col((r) => r.net_amount),
      col((r) => r.pix_key),
      col((r) => r.pix_key_type),
      keyed.map((x) => x.item.key),
      keyed.map((x) => x.item.hash),
      keyed.map((x) => (x.outcome instanceof AppError ? x.outcome.status : 201)),
      keyed.map((x) => acceptedByIndex.get(x.index) ?? null),
      keyed.map((x) =>
        x.outcome instanceof AppError
          ? JSON.stringify({ code: x.outcome.code, message: x.outcome.message })
          : null,
      ),
    ],
  );
  if (result!.stored !== keyed.length) throw new IdempotencyRace('idempotency key stored concurrently');
  // json_agg gives timestamps as text; the rest of the code expects Date like a direct SELECT.
  return (result!.rows ?? []).map((r) => ({
    ...r,
    created_at: new Date(r.created_at),
    updated_at: new Date(r.updated_at),
    processed_at: null,
    submitting_at: null,
  }));
}
