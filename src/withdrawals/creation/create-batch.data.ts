import { settingSql, withdrawalTermsSql } from '../../accounts/index.js';
import { availableBalanceSql, recipientAvailableBalanceSql } from '../../ledger/index.js';
import { type Queryable, whenCommitted } from '../../platform/db/db.js';
import { AppError } from '../../platform/errors/app-error.js';
import { cashouts } from '../../platform/observability/metrics.js';
import type { WithdrawalRow } from '../data.js';
import { IDEMPOTENCY_TTL_HOURS, IdempotencyRace } from './idempotency.js';
import type { ItemOutcome, RecipientRef, WithdrawalItem } from './types.js';

/** SQL of the shared cashout transaction (create-batch.ts decides; this reads and writes). */

export interface AccountContext {
  cashout_fee_fixed: number;
  cashout_fee_percent_e4: number;
  api_cashout_enabled: boolean;
  transfers_enabled: boolean;
  /** The account's payouts are held (or it is suspended): its new withdrawals wait in AWAITING_REVIEW. */
  payouts_held: boolean;
  global_switch: string | null;
  available: number | null;
  /** Withdrawals at or above it wait for a second person's approval (null: none do). */
  approval_threshold: number | null;
  items: {
    key: string | null;
    locked: boolean;
    request_hash: string | null;
    withdrawal_id: number | null;
    response_body: string | null;
    next_id: number;
  }[];
}

export interface Accepted {
  index: number;
  row: Omit<
    WithdrawalRow,
    | 'status'
    | 'provider'
    | 'external_id'
    | 'submitting_at'
    | 'created_at'
    | 'updated_at'
    | 'processed_at'
    | 'approval_decided_by'
    | 'approval_decided_at'
    | 'recipient_id'
    | 'recipient_uuid'
  >;
}

/**
 * One round trip: the account's fees and switches, the global switch, the available balance (locked until
 * commit with `lock`), and per item its key's lock and stored outcome plus the id its withdrawal will have.
 * With `recipient`, the balance read is that recipient's (the account's fees, switches and keys still apply).
 */
export async function loadContext(
  tx: Queryable,
  accountId: number,
  items: WithdrawalItem[],
  lock: boolean,
  recipient: RecipientRef | null = null,
) {
  const bal = recipient ? recipientAvailableBalanceSql('$3', lock) : availableBalanceSql('$1', lock);
  const [ctx] = await tx.query<AccountContext>(
    `WITH bal AS (${bal}),
     k AS (
       SELECT k.ord, k.key,
              -- a key with a stored outcome is a replay: it needs no lock (the outcome is final), and taking
              -- one would make concurrent replays of it refuse each other as "in use"
              CASE WHEN k.key IS NULL OR i.request_hash IS NOT NULL THEN true
                   ELSE pg_try_advisory_xact_lock(hashtextextended($1::text || ':' || k.key, 727274010)) END AS locked,
              i.request_hash, i.withdrawal_id, i.response_body,
              nextval('withdrawals_id_seq') AS next_id
         FROM unnest($2::text[]) WITH ORDINALITY AS k(key, ord)
         -- one primary-key probe per key (LIMIT keeps the subquery from being flattened into a join: as a
         -- join, before the first ANALYZE the planner took a merchant for a few rows and read all its keys
         -- into a hash, 4 ms per batch at 10,000 keys)
         LEFT JOIN LATERAL (
           SELECT * FROM cashout_idempotency i
            WHERE i.account_id = $1 AND i.key = k.key AND i.expires_at > now() LIMIT 1) i ON true)
     SELECT a.cashout_fee_fixed, a.cashout_fee_percent_e4, a.api_cashout_enabled, a.transfers_enabled,
            a.payouts_held,
            ${settingSql('api_withdrawals')} AS global_switch,
            (SELECT balance FROM bal) AS available,
            (SELECT threshold_cents FROM withdrawal_approval_rules WHERE account_id = $1) AS approval_threshold,
            (SELECT json_agg(json_build_object('key', k.key, 'locked', k.locked, 'request_hash', k.request_hash,
                      'withdrawal_id', k.withdrawal_id, 'response_body', k.response_body, 'next_id', k.next_id)
                      ORDER BY k.ord) FROM k) AS items
       FROM (${withdrawalTermsSql('$1')}) a`,
    // not a prepared statement: a generic plan cached while the tables were small may scan them as they grow
    recipient ? [accountId, items.map((i) => i.key), recipient.id] : [accountId, items.map((i) => i.key)],
  );
  return ctx ?? null;
}

/** The accepted withdrawals and every key's outcome, in one statement; a key stored meanwhile → race. */
export async function insertWithdrawalsAndKeys(
  tx: Queryable,
  accountId: number,
  items: WithdrawalItem[],
  outcomes: (ItemOutcome | { replayOf: number } | null)[],
  toStore: boolean[],
  accepted: Accepted[],
  held: boolean,
  recipient: RecipientRef | null = null,
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
         (id, uuid, account_id, amount, fee_fixed, fee_variable, net_amount, pix_key, pix_key_type, status,
          approval_status, approval_requested_by, created_held, recipient_id, recipient_uuid)
       SELECT id, uuid, $1, amount, fee_fixed, fee_variable, net_amount, pix_key, pix_key_type,
              CASE WHEN $17::boolean THEN 'AWAITING_REVIEW' ELSE 'PENDING' END,
              approval_status, requested_by, $17::boolean, $18::bigint, $19::uuid
         FROM unnest($2::bigint[], $3::uuid[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[], $9::text[],
                     $15::text[], $16::text[])
           AS v(id, uuid, amount, fee_fixed, fee_variable, net_amount, pix_key, pix_key_type, approval_status, requested_by)
       RETURNING *),
     i AS (
       INSERT INTO cashout_idempotency
         (account_id, key, request_hash, withdrawal_id, response_body, expires_at)
       SELECT $1, key, hash, wid, body, now() + make_interval(hours => $14)
         FROM unnest($10::text[], $11::text[], $12::bigint[], $13::text[]) AS v(key, hash, wid, body)
       ON CONFLICT (account_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash,
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
      keyed.map((x) => acceptedByIndex.get(x.index) ?? null),
      keyed.map((x) =>
        x.outcome instanceof AppError
          ? JSON.stringify({ code: x.outcome.code, message: x.outcome.message })
          : null,
      ),
      IDEMPOTENCY_TTL_HOURS,
      col((r) => r.approval_status),
      col((r) => r.approval_requested_by),
      held,
      recipient?.id ?? null,
      recipient?.uuid ?? null,
    ],
    { prepare: 'cashout_insert' },
  );
  if (result!.stored !== keyed.length) throw new IdempotencyRace('idempotency key stored concurrently');
  // acceptance records no notification fact (facts report changes), so it is counted here
  const made = result!.rows?.length ?? 0;
  if (made > 0) whenCommitted(tx, () => cashouts.inc({ status: held ? 'AWAITING_REVIEW' : 'PENDING' }, made));
  // json_agg gives timestamps as text; the rest of the code expects Date like a direct SELECT.
  return (result!.rows ?? []).map((r) => ({
    ...r,
    created_at: new Date(r.created_at),
    updated_at: new Date(r.updated_at),
    processed_at: null,
    submitting_at: null,
    approval_decided_at: null,
  }));
}
