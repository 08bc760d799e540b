import { type Actor, recentAudit, recordAudit } from '../../audit/index.js';
import { type MailOutbox, queueMail } from '../../mail/index.js';
import { lockForTransaction } from '../../platform/db/advisory-lock.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import { isUniqueViolation } from '../../platform/db/db.js';
import { AppError, notFound, validation } from '../../platform/errors/app-error.js';
import { isEmailAddress } from '../../platform/net/email.js';
import { nameProblem } from '../../platform/text/names.js';
import type { Role } from '../roles.js';
import type { Session } from '../sessions.js';
import { findUser, listUsers, lockOwners, type UserRow } from './data.js';
import { issueLink, liveLinkExpiry } from './links.js';
import { invitationMail, takenAddressMail } from './mails.js';

/** Invitations an account may send in an hour (decisions.md, "Teams"): bounds mail sent to strangers. */
export const INVITATIONS_PER_HOUR = 20;

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
    /** The account's name, for the invitation's words (the accounts module's, handed in by the app). */
    private readonly accountName: (q: Queryable, accountId: number) => Promise<string | null>,
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
    if (!isEmailAddress(email)) throw validation('email is not an email address (at most 254 characters)');
    const problem = nameProblem(name);
    if (problem) throw validation(`name ${problem}`);
    checkOwnerRule(by, input.role, null);
    try {
      return await this.db.tx(async (tx) => {
        // one account's invitations one at a time: the hour's count cannot be passed by sending at once
        await lockForTransaction(tx, 'invitations', by.accountId);
        const accountName = (await this.accountName(tx, by.accountId)) ?? '';
        await checkInvitationRate(tx, by.accountId);
        await dropLapsedInvitation(tx, by.accountId, email);
        // an address already of this account is answered, not attempted: a failed INSERT is an ERROR line in the
        // server's log (and a spent id) for every refusal
        const [user] = await tx.query<UserRow>(
          `INSERT INTO users (account_id, name, email, role, status) VALUES ($1, $2, $3, $4, 'invited')
           ON CONFLICT (account_id, email) DO NOTHING RETURNING *`,
          [by.accountId, name, email, input.role],
        );
        if (!user)
          throw new AppError('EMAIL_TAKEN', `${email} is already a user or an invitee of this account`);
        const link = await issueLink(tx, user!.id, 'invitation');
        // the same rows, audit entry and mail either way: only the mail's words tell the invitee (never the
        // inviter) that the address already has an account, and that invitation cannot be accepted
        const takenElsewhere = await activeElsewhere(tx, by.accountId, email);
        const mail = { accountName, inviter: by.user.name, role: input.role };
        await recordAudit(tx, by.accountId, actor, { action: 'user.invited', target: `user:${user!.id}` });
        await queueMail(tx, this.mail, {
          cause: `invitation:${link.tokenHash}`,
          to: email,
          ...(takenElsewhere
            ? takenAddressMail(mail)
            : invitationMail({ ...mail, url: `${this.publicUrl}/#/convite/${link.token}` })),
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
        throw new AppError('EMAIL_TAKEN', `${email} is already a user or an invitee of this account`);
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
 * An invitation of this account whose link lapsed unused frees its e-mail here: the row goes, so the address
 * can be invited again. A live invitation or an active user of the account keeps it taken (409).
 */
async function dropLapsedInvitation(tx: Queryable, accountId: number, email: string): Promise<void> {
  const [row] = await tx.query<{ id: number }>(
    "SELECT id FROM users WHERE account_id = $1 AND email = $2 AND status = 'invited' FOR UPDATE",
    [accountId, email],
  );
  if (row && (await liveLinkExpiry(tx, row.id, 'invitation')) === null) {
    await tx.query('DELETE FROM users WHERE id = $1', [row.id]);
  }
}

/** Whether the address is an active user of another account (then it cannot join this one). */
async function activeElsewhere(tx: Queryable, accountId: number, email: string): Promise<boolean> {
  const rows = await tx.query(
    "SELECT 1 FROM users WHERE email = $1 AND status = 'active' AND account_id <> $2",
    [email, accountId],
  );
  return rows.length > 0;
}

/** 429 RATE_LIMITED past INVITATIONS_PER_HOUR invitations in the last hour (withdrawn ones count too). */
async function checkInvitationRate(tx: Queryable, accountId: number): Promise<void> {
  const recent = await recentAudit(tx, accountId, 'user.invited', 3600);
  if (recent.count < INVITATIONS_PER_HOUR) return;
  const retryAfter = Math.max(1, recent.secondsUntilOldestLeaves);
  throw new AppError('RATE_LIMITED', `At most ${INVITATIONS_PER_HOUR} invitations an hour; try again later`, {
    limit: { max: INVITATIONS_PER_HOUR, retryAfterSeconds: retryAfter },
  });
}
