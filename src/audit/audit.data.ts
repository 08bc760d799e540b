import type { Queryable } from '../platform/db/db.js';
import { ensureMonthPartitions } from '../platform/db/month-partitions.js';

export const AUDIT_ACTIONS = [
  'login.succeeded',
  'login.failed',
  'logout',
  'totp.enabled',
  'totp.disabled',
  'credential.created',
  'credential.rolled',
  'credential.narrowed',
  'credential.revoked',
  'allowed_ips.updated',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.recovered',
  'webhook.disabled',
  'withdrawal.created',
  'account.updated',
  'settings.updated',
  'user.invited',
  'user.joined',
  'user.role_changed',
  'user.removed',
  'password.reset',
  'withdrawal.approved',
  'withdrawal.declined',
  'approval_rule.updated',
  'dispute.answered',
  'dispute.accepted',
  'recipient.updated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acted, and from where. A panel user is the account's user (id = account id); an API key is the
 * credential (id = its id, label = its public key); the operator is a command line or the gateway itself.
 */
export interface Actor {
  type: 'user' | 'api_key' | 'operator';
  id: number | null;
  label: string;
  ip: string | null;
  userAgent: string | null;
}

export const SYSTEM_ACTOR: Actor = {
  type: 'operator',
  id: null,
  label: 'gateway',
  ip: null,
  userAgent: null,
};
export const CLI_ACTOR: Actor = {
  type: 'operator',
  id: null,
  label: 'command line',
  ip: null,
  userAgent: null,
};

export interface AuditEntry {
  action: AuditAction;
  /** What the action was done to, e.g. `credential:12`, `webhook:3`, `withdrawal:<uuid>`. */
  target: string | null;
}

/** Records entries in the caller's transaction: they commit with the change they describe, or not at all. */
export async function recordAudit(
  q: Queryable,
  accountId: number,
  actor: Actor,
  ...entries: AuditEntry[]
): Promise<void> {
  if (entries.length === 0) return;
  await q.query(
    `INSERT INTO audit_log (account_id, actor_type, actor_id, actor_label, action, target, ip, user_agent)
     SELECT $1, $2, $3, $4, a.action, a.target, $5, $6 FROM unnest($7::text[], $8::text[]) AS a(action, target)`,
    [
      accountId,
      actor.type,
      actor.id,
      actor.label,
      actor.ip,
      actor.userAgent?.slice(0, 512) ?? null,
      entries.map((e) => e.action),
      entries.map((e) => e.target),
    ],
  );
}

/**
 * How many entries of `action` the account has in the last `seconds`, and when the oldest of them leaves that
 * window (a count of things done, for limits that must hold across processes).
 */
export async function recentAudit(
  q: Queryable,
  accountId: number,
  action: AuditAction,
  seconds: number,
): Promise<{ count: number; secondsUntilOldestLeaves: number }> {
  const [row] = await q.query<{ count: number; wait: number | null }>(
    `SELECT count(*)::int AS count,
            ceil(extract(epoch FROM min(at) + make_interval(secs => $3) - now()))::int AS wait
       FROM audit_log WHERE account_id = $1 AND action = $2 AND at > now() - make_interval(secs => $3)`,
    [accountId, action, seconds],
  );
  return { count: row?.count ?? 0, secondsUntilOldestLeaves: row?.wait ?? 0 };
}

/** Many accounts' entries by one actor kind at once (a batch of API cashouts), in the caller's transaction. */
export async function recordAuditRows(
  q: Queryable,
  rows: readonly { accountId: number; actor: Actor; entry: AuditEntry }[],
): Promise<void> {
  if (rows.length === 0) return;
  const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
  await q.query(
    `INSERT INTO audit_log (account_id, actor_type, actor_id, actor_label, action, target, ip, user_agent)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[],
                          $8::text[])`,
    [
      col((r) => r.accountId),
      col((r) => r.actor.type),
      col((r) => r.actor.id),
      col((r) => r.actor.label),
      col((r) => r.entry.action),
      col((r) => r.entry.target),
      col((r) => r.actor.ip),
      col((r) => r.actor.userAgent?.slice(0, 512) ?? null),
    ],
    { prepare: 'audit_rows' },
  );
}

/** One entry in the log of each account `accountIdsSql` (a subquery of account ids) selects, in one statement. */
export async function recordForAccounts(
  q: Queryable,
  accountIdsSql: string,
  actor: Actor,
  entry: AuditEntry,
): Promise<void> {
  await q.query(
    `INSERT INTO audit_log (account_id, actor_type, actor_id, actor_label, action, target)
     SELECT id, $1, $2, $3, $4, $5 FROM (${accountIdsSql}) AS a(id)`,
    [actor.type, actor.id, actor.label, entry.action, entry.target],
  );
}

export interface AuditRow {
  id: number;
  at: Date;
  actor_type: Actor['type'];
  actor_id: number | null;
  actor_label: string;
  action: string;
  target: string | null;
  ip: string | null;
  user_agent: string | null;
}

export function listAudit(
  q: Queryable,
  accountId: number,
  limit: number,
  before: number | null,
): Promise<AuditRow[]> {
  return q.query<AuditRow>(
    `SELECT id, at, actor_type, actor_id, actor_label, action, target, ip, user_agent
       FROM audit_log WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [accountId, before, limit],
  );
}

/** The audit log's coming months (it is partitioned by month, migration 271; kept for good). */
export function ensureAuditPartitions(db: Queryable): Promise<number> {
  return ensureMonthPartitions(db, ['audit_log']);
}
