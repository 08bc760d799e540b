import { lockForTransaction } from '../platform/db/advisory-lock.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, conflict, notFound } from '../platform/errors/app-error.js';
import { type OperatorActor, recordOperatorAudit } from './audit.js';
import { type OperatorRow, type OperatorView, operatorView } from './data.js';
import type { OperatorRole } from './roles.js';

/**
 * Someone who leaves the payment company, or changes job: an admin (or the command line, at the server) disables
 * their access or changes their role. A disabled operator's sessions end at once, their password and
 * authenticator are forgotten and their open invitations stop working; only a new invitation (resend) brings
 * them back, through a fresh enrolment. Nobody disables or changes their own access (another admin does), and
 * the console always keeps one active admin. Each change is audited, in its transaction.
 */
export class OperatorStaff {
  constructor(private readonly db: Db) {}

  disable(operatorId: number, actor: OperatorActor): Promise<OperatorView> {
    return refusalsAudited(this.db, operatorId, actor, async (tx) => {
      await takeTurn(tx);
      // the invitations first, then the operator: the order an enrolment takes them in (invitations.ts)
      await expireInvitations(tx, operatorId);
      const target = await lockInTurn(tx, operatorId, actor, 'disable your own access');
      if (target.status === 'disabled') return operatorView(target);
      await keepAnAdmin(tx, target, `${target.email} is the only active admin: invite another admin first`);
      // the links they sent that nobody has enrolled with yet stop working too (they left, or their account was
      // taken): another admin sends them again. Only invitation rows: no operator row is locked by it
      const revoked = await tx.query(
        `UPDATE operator_invitations SET expires_at = now()
          WHERE sent_by = $1 AND enrolled_at IS NULL AND expires_at > now() RETURNING 1`,
        [target.id],
      );
      const [row] = await tx.query<OperatorRow>(
        // the authenticator forgotten with the steps it used: a new one, on a new invitation, starts afresh
        `UPDATE operators SET status = 'disabled', password_hash = NULL, totp_secret_enc = NULL,
                totp_pending_enc = NULL, totp_last_step = 0
          WHERE id = $1 RETURNING *`,
        [target.id],
      );
      await tx.query('DELETE FROM operator_sessions WHERE operator_id = $1', [target.id]);
      await recordOperatorAudit(tx, actor, {
        action: 'operator.disabled',
        target: `operator:${target.id}`,
        before: { email: target.email, role: target.role, status: target.status },
        after: {
          status: 'disabled',
          ...(revoked.length > 0 ? { invitationsSentEnded: revoked.length } : {}),
        },
      });
      return operatorView(row!);
    });
  }

  changeRole(operatorId: number, role: OperatorRole, actor: OperatorActor): Promise<OperatorView> {
    return refusalsAudited(this.db, operatorId, actor, async (tx) => {
      await takeTurn(tx);
      const target = await lockInTurn(tx, operatorId, actor, 'change your own role');
      if (target.status === 'disabled') {
        throw conflict(`${target.email} is disabled: invite them again to give them a role`);
      }
      if (target.role === role) return operatorView(target);
      if (role !== 'admin') {
        await keepAnAdmin(tx, target, `${target.email} is the only active admin: make another admin first`);
      }
      const [row] = await tx.query<OperatorRow>('UPDATE operators SET role = $2 WHERE id = $1 RETURNING *', [
        target.id,
        role,
      ]);
      await recordOperatorAudit(tx, actor, {
        action: 'operator.role_changed',
        target: `operator:${target.id}`,
        before: { email: target.email, role: target.role },
        after: { role },
      });
      return operatorView(row!);
    });
  }
}

/**
 * A change, in its transaction. Refused because the one asking was no longer an active admin when their turn
 * came, the refusal is in the audit log, as every attempt beyond one's role is (written once the change's
 * transaction is undone).
 */
export async function refusalsAudited<T>(
  db: Db,
  operatorId: number,
  actor: OperatorActor,
  change: (tx: Queryable) => Promise<T>,
): Promise<T> {
  try {
    return await db.tx(change);
  } catch (err) {
    if (err instanceof NoLongerAdmin) {
      await recordOperatorAudit(db, actor, {
        action: 'denied',
        target: `operator:${operatorId}`,
        after: { role: 'insufficient' },
      });
    }
    throw err;
  }
}

/**
 * The operator to change, read with the one asking once every change of operators before has committed (they
 * take turns: two admins disabling each other at once, or the last two admins disabled together, cannot both
 * pass). The one asking must still be an active admin when their turn comes: an admin disabled or demoted a
 * moment ago changes nobody. The rows are locked against a change of their columns, not of their keys: audit
 * rows naming them (a foreign key's share lock) are written meanwhile by other transactions.
 */
export async function lockInTurn(
  tx: Queryable,
  operatorId: number,
  actor: OperatorActor,
  own: string | null,
): Promise<OperatorRow> {
  if (own !== null && actor.id !== null && Number(actor.id) === operatorId) {
    throw conflict(`You cannot ${own}: another admin can`);
  }
  const ids = actor.id === null ? [operatorId] : [operatorId, actor.id];
  const rows = await tx.query<OperatorRow>(
    'SELECT * FROM operators WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE',
    [ids],
  );
  if (actor.id !== null) {
    const self = rows.find((r) => Number(r.id) === Number(actor.id));
    if (self?.status !== 'active' || self.role !== 'admin') throw new NoLongerAdmin();
  }
  const target = rows.find((r) => Number(r.id) === operatorId);
  if (!target) throw notFound('Operator not found');
  return target;
}

/** Refuses a change that would leave no active admin (the command line may ask it of the last one). */
async function keepAnAdmin(tx: Queryable, target: OperatorRow, message: string): Promise<void> {
  if (target.role !== 'admin' || target.status !== 'active') return;
  const others = await tx.query<{ id: number }>(
    `SELECT id FROM operators WHERE role = 'admin' AND status = 'active' AND id <> $1`,
    [target.id],
  );
  if (others.length === 0) throw conflict(message);
}

/** The one asking was disabled or demoted while their change waited its turn. */
class NoLongerAdmin extends AppError {
  constructor() {
    super('FORBIDDEN', 'Only an active admin changes operators');
  }
}

/**
 * Changes of operators (a role, an access disabled, an invitation sent again) take turns, one transaction at a
 * time, each seeing the results of those before.
 */
export async function takeTurn(tx: Queryable): Promise<void> {
  await lockForTransaction(tx, 'operator-staff', 0);
}

/** Every invitation of the operator not yet used up stops working now. */
export async function expireInvitations(tx: Queryable, operatorId: number): Promise<void> {
  await tx.query(
    `UPDATE operator_invitations SET expires_at = now()
      WHERE operator_id = $1 AND enrolled_at IS NULL AND expires_at > now()`,
    [operatorId],
  );
}

/** The operator with this e-mail (the command line names operators by their login). */
export async function operatorIdByEmail(q: Queryable, email: string): Promise<number> {
  const [row] = await q.query<{ id: number }>('SELECT id FROM operators WHERE email = $1', [
    email.trim().toLowerCase(),
  ]);
  if (!row) throw notFound(`No operator has the e-mail ${email.trim()}`);
  return Number(row.id);
}
