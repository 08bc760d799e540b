import { type Actor, recordAudit } from '../../audit/audit.data.js';
import { type MailOutbox, queueMail } from '../../mail/outbox.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import { isUniqueViolation } from '../../platform/db/db.js';
import { AppError, notFound, validation } from '../../platform/http/errors.js';
import { EMAIL } from '../../platform/net/email.js';
import type { Role } from '../roles.js';
import type { Session } from '../sessions.js';
import { findUser, listUsers, lockOwners, type UserRow } from './data.js';
import { issueLink, liveLinkExpiry } from './links.js';
import { invitationMail } from './mails.js';

export interface TeamMember {
  id: number;
  name: string;
  email: string;
  role: Role;
  status: 'active' | 'invited';
  totpEnabled: boolean;
  createdAt: string;
  lastLoginAt: string | null;
}

export interface Invitation {
  id: number;
  email: string;
  name: string;
  role: Role;
  status: 'invited';
  expiresAt: string;
}

const memberView = (u: UserRow): TeamMember => ({
  id: Number(u.id),
  name: u.name,
  email: u.email,
  role: u.role,
  status: u.status,
  totpEnabled: u.totp_secret_enc !== null,
  createdAt: new Date(u.created_at).toISOString(),
  lastLoginAt: u.last_login_at ? new Date(u.last_login_at).toISOString() : null,
});

const forbidden = (message: string) => new AppError('FORBIDDEN', message);

/** Only an owner makes, changes or removes an owner (an admin manages everyone else). */
function checkOwnerRule(by: Session, role: Role | null, target: UserRow | null): void {
  if (by.user.role === 'owner') return;
  if (role === 'owner') throw forbidden('Only an owner can make someone an owner');
  if (target?.role === 'owner') throw forbidden('Only an owner can change or remove an owner');
}

/** An account's users and invitations (decisions.md, Teams), managed by its owners and admins. */
export class TeamService {
  constructor(
    private readonly db: Db,
    private readonly mail: MailOutbox,
    private readonly publicUrl: string,
  ) {}

  async list(accountId: number): Promise<TeamMember[]> {
    return (await listUsers(this.db, accountId)).map(memberView);
  }

  async invite(
    by: Session,
    input: { email: string; name: string; role: Role },
    actor: Actor,
  ): Promise<Invitation> {
    const email = input.email.trim().toLowerCase();
    const name = input.name.trim();
    if (!EMAIL.test(email)) throw validation(`"${input.email}" is not an email address`);
    if (!name) throw validation('name must not be empty');
    checkOwnerRule(by, input.role, null);
    try {
      return await this.db.tx(async (tx) => {
        await dropLapsedInvitation(tx, email);
        const [user] = await tx.query<UserRow>(
          `INSERT INTO users (account_id, name, email, role, status) VALUES ($1, $2, $3, $4, 'invited') RETURNING *`,
          [by.accountId, name, email, input.role],
        );
        const link = await issueLink(tx, user!.id, 'invitation');
        const [account] = await tx.query<{ name: string }>('SELECT name FROM accounts WHERE id = $1', [
          by.accountId,
        ]);
        await recordAudit(tx, by.accountId, actor, { action: 'user.invited', target: `user:${user!.id}` });
        await queueMail(tx, this.mail, {
          cause: `invitation:${link.tokenHash}`,
          to: email,
          ...invitationMail({
            accountName: account!.name,
            inviter: by.user.name,
            role: input.role,
            url: `${this.publicUrl}/#/convite/${link.token}`,
          }),
        });
        return {
          id: Number(user!.id),
          email,
          name,
          role: input.role,
          status: 'invited' as const,
          expiresAt: link.expiresAt.toISOString(),
        };
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new AppError('EMAIL_TAKEN', `${email} is already a user of an account of this gateway`);
      }
      throw err;
    }
  }

  async changeRole(by: Session, userId: number, role: Role, actor: Actor): Promise<TeamMember> {
    return this.db.tx(async (tx) => {
      const owners = await lockOwners(tx, by.accountId);
      const target = await findUser(tx, by.accountId, userId);
      if (!target) throw notFound('No such user in this account');
      checkOwnerRule(by, role, target);
      if (
        target.role === 'owner' &&
        role !== 'owner' &&
        owners.length === 1 &&
        owners[0] === Number(target.id)
      ) {
        throw new AppError('LAST_OWNER', 'The account must keep an owner: make someone else an owner first');
      }
      if (target.role === role) return memberView(target);
      const [row] = await tx.query<UserRow>('UPDATE users SET role = $2 WHERE id = $1 RETURNING *', [
        userId,
        role,
      ]);
      await recordAudit(tx, by.accountId, actor, { action: 'user.role_changed', target: `user:${userId}` });
      return memberView(row!);
    });
  }

  /** Removes a user (or withdraws an invitation); their sessions end at once. */
  async remove(by: Session, userId: number, actor: Actor): Promise<void> {
    await this.db.tx(async (tx) => {
      const owners = await lockOwners(tx, by.accountId);
      const target = await findUser(tx, by.accountId, userId);
      if (!target) throw notFound('No such user in this account');
      checkOwnerRule(by, null, target);
      if (target.role === 'owner' && owners.length === 1 && owners[0] === Number(target.id)) {
        throw new AppError('LAST_OWNER', 'The account must keep an owner: make someone else an owner first');
      }
      await tx.query('DELETE FROM panel_sessions WHERE user_id = $1', [userId]);
      await tx.query('DELETE FROM users WHERE id = $1', [userId]);
      await recordAudit(tx, by.accountId, actor, { action: 'user.removed', target: `user:${userId}` });
    });
  }
}

/**
 * An invitation whose link lapsed unused frees its e-mail: the row goes, so the address can be invited again
 * (here or by another account). A live invitation or an active user keeps it taken.
 */
async function dropLapsedInvitation(tx: Queryable, email: string): Promise<void> {
  const [row] = await tx.query<{ id: number }>(
    "SELECT id FROM users WHERE email = $1 AND status = 'invited' FOR UPDATE",
    [email],
  );
  if (row && (await liveLinkExpiry(tx, row.id, 'invitation')) === null) {
    await tx.query('DELETE FROM users WHERE id = $1', [row.id]);
  }
}
