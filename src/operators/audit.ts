import type { Queryable } from '../platform/db/db.js';
import type { OperatorAuditAction } from './audit-actions.js';

/** The operator behind an action, and where the request came from. */
export interface OperatorActor {
  id: number | null;
  email: string;
  ip: string | null;
  userAgent: string | null;
}

/** The command line (`gateway operators create`): a person at the server, named as such. */
export const CLI_OPERATOR: OperatorActor = { id: null, email: 'cli', ip: null, userAgent: null };

export interface OperatorAuditEntry {
  action: OperatorAuditAction;
  accountId?: number | null;
  target?: string | null;
  before?: unknown;
  after?: unknown;
}

export interface OperatorAuditRow {
  id: number;
  at: string;
  operatorId: number | null;
  operatorEmail: string;
  action: string;
  accountId: number | null;
  target: string | null;
  before: unknown;
  after: unknown;
  ip: string | null;
}

/**
 * Appends to the operator audit log, in the caller's transaction (the entry exists if and only if the action
 * commits). The table refuses UPDATE, DELETE and TRUNCATE to everyone (migration 220): nobody edits it.
 */
export async function recordOperatorAudit(
  tx: Queryable,
  actor: OperatorActor,
  entry: OperatorAuditEntry,
): Promise<void> {
  await tx.query(
    `INSERT INTO operator_audit (operator_id, operator_email, action, account_id, target, before, after, ip, user_agent)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9)`,
    [
      actor.id,
      actor.email,
      entry.action,
      entry.accountId ?? null,
      entry.target ?? null,
      entry.before === undefined ? null : JSON.stringify(entry.before),
      entry.after === undefined ? null : JSON.stringify(entry.after),
      actor.ip,
      actor.userAgent,
    ],
  );
}

/** Newest first, `limit` rows older than `before` (an id), of one account or of all. */
export async function listOperatorAudit(
  q: Queryable,
  filter: { accountId: number | null; before: number | null; limit: number },
): Promise<OperatorAuditRow[]> {
  const rows = await q.query<{
    id: string;
    at: Date;
    operator_id: string | null;
    operator_email: string;
    action: string;
    account_id: string | null;
    target: string | null;
    before: unknown;
    after: unknown;
    ip: string | null;
  }>(
    `SELECT id, at, operator_id, operator_email, action, account_id, target, before, after, ip
       FROM operator_audit
      WHERE ($1::bigint IS NULL OR account_id = $1) AND ($2::bigint IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [filter.accountId, filter.before, filter.limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    at: r.at.toISOString(),
    operatorId: r.operator_id === null ? null : Number(r.operator_id),
    operatorEmail: r.operator_email,
    action: r.action,
    accountId: r.account_id === null ? null : Number(r.account_id),
    target: r.target,
    before: r.before,
    after: r.after,
    ip: r.ip,
  }));
}
