import type { Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { OperatorRole } from './roles.js';

export type OperatorStatus = 'invited' | 'enrolling' | 'active' | 'disabled';

export interface OperatorRow {
  id: number;
  email: string;
  role: OperatorRole;
  status: OperatorStatus;
  password_hash: string | null;
  totp_secret_enc: string | null;
  totp_pending_enc: string | null;
  created_at: Date;
  last_login_at: Date | null;
  /** The time step of the last code accepted (at first, the one that enrolled the authenticator). */
  totp_last_step: number;
}

/** What the console shows of an operator (never a hash or a secret). */
export interface OperatorView {
  id: number;
  email: string;
  role: OperatorRole;
  status: OperatorStatus;
  createdAt: string;
  lastLoginAt: string | null;
}

export const operatorView = (row: OperatorRow): OperatorView => ({
  id: Number(row.id),
  email: row.email,
  role: row.role,
  status: row.status,
  createdAt: row.created_at.toISOString(),
  lastLoginAt: row.last_login_at ? row.last_login_at.toISOString() : null,
});

export async function findOperatorByEmail(q: Queryable, email: string): Promise<OperatorRow | null> {
  return rowOrNull<OperatorRow>(q, 'SELECT * FROM operators WHERE email = $1', [email]);
}

export async function listOperators(q: Queryable): Promise<OperatorRow[]> {
  return q.query<OperatorRow>('SELECT * FROM operators ORDER BY id');
}

export async function countOperators(q: Queryable): Promise<number> {
  const [row] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM operators');
  return row?.n ?? 0;
}

/**
 * Accepts a TOTP code once per operator: its step must be later than the last accepted one, recorded in the
 * same statement (two requests with one code cannot both pass).
 */
export async function consumeOperatorStep(q: Queryable, operatorId: number, step: number): Promise<boolean> {
  const rows = await q.query(
    'UPDATE operators SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2 RETURNING id',
    [operatorId, step],
  );
  return rows.length === 1;
}

/**
 * The code that enrolled the authenticator, accepted once more for the operator's first login: the console goes
 * from enrolment straight to the login form, where the person still has that code. Only while the operator has
 * never logged in and only that step (the caller checks the code is that step's, within ENROLMENT_CODE_STEPS);
 * the same statement spends it, so two logins with it cannot both pass.
 */
/** How long the enrolment's code stays good for the first login: 10 minutes of 30-second steps. */
export const ENROLMENT_CODE_STEPS = 20;

export async function consumeEnrolmentStep(q: Queryable, operatorId: number, step: number): Promise<boolean> {
  const rows = await q.query(
    `UPDATE operators SET last_login_at = now()
      WHERE id = $1 AND last_login_at IS NULL AND totp_last_step = $2 RETURNING id`,
    [operatorId, step],
  );
  return rows.length === 1;
}
