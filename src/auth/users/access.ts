import { type Actor, recordAudit } from '../../audit/index.js';
import { type MailOutbox, queueMail } from '../../mail/index.js';
import { type Db, isUniqueViolation } from '../../platform/db/db.js';
import { RecentDurations } from '../../platform/time/recent-durations.js';
import { checkPassword, hashPassword } from '../passwords.js';
import { endSessionsOnNewPassword, type NewSession, type RequestOrigin, startSession } from '../sessions.js';
import type { UserRow } from './data.js';
import { invalidToken, issueLink, requireLiveLink, spendLink, voidLinks } from './links.js';
import { passwordResetMail } from './mails.js';

const actorOf = (user: UserRow, origin: RequestOrigin): Actor => ({
  type: 'user',
  id: Number(user.id),
  label: user.email,
  ...origin,
});

/** A reset asked for again within this many seconds mails nothing new (the first link still works). */
const RESET_MAIL_GAP_SECONDS = 60;

/** How long a reset that mails a link takes here: a request that mails nothing answers after as long. */
const resetMailed = new RecentDurations(31, 25);

/** The links sent by e-mail: accepting an invitation, and resetting a forgotten password. */
export class AccessLinks {
  constructor(
    private readonly db: Db,
    private readonly mail: MailOutbox,
    private readonly publicUrl: string,
  ) {}

  /**
   * The invited user chooses a password and is signed in (the same answer and cookie as a login). An address
   * that is an active user elsewhere (already when invited, or since) cannot join: 400 INVALID_TOKEN.
   */
  async acceptInvitation(token: string, password: string, origin: RequestOrigin): Promise<NewSession> {
    await requireLiveLink(this.db, token, 'invitation');
    checkPassword(password);
    const passwordHash = await hashPassword(password);
    try {
      return await this.db.tx(async (tx) => {
        const invited = await spendLink(tx, token, 'invitation');
        // the partial unique index decides a race between two accounts' invitations; this is the common case
        const taken = await tx.query("SELECT 1 FROM users WHERE email = $1 AND status = 'active'", [
          invited.email,
        ]);
        if (taken.length > 0) throw invalidToken();
        const [user] = await tx.query<UserRow>(
          "UPDATE users SET status = 'active', password_hash = $2 WHERE id = $1 RETURNING *",
          [invited.id, passwordHash],
        );
        await recordAudit(tx, user!.account_id, actorOf(user!, origin), {
          action: 'user.joined',
          target: `user:${user!.id}`,
        });
        return startSession(tx, user!);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw invalidToken();
      throw err;
    }
  }

  /**
   * Mails a one-time link to an active user with that e-mail. The caller answers 202 whatever happens here, so
   * the answer tells nobody whether the address has an account; and a request that mails nothing (no such
   * user, or one mailed less than a minute ago) ends after as long as the recent ones that mailed a link, so
   * its time does not tell either.
   */
  async requestPasswordReset(emailRaw: string): Promise<void> {
    const started = performance.now();
    const email = emailRaw.trim().toLowerCase();
    const mailed = await this.db.tx(async (tx) => {
      const [user] = await tx.query<UserRow & { recent: boolean }>(
        `SELECT u.*, EXISTS (
           SELECT 1 FROM user_tokens t
            WHERE t.user_id = u.id AND t.purpose = 'password_reset' AND t.used_at IS NULL
              AND t.created_at > now() - make_interval(secs => $2)) AS recent
           FROM users u WHERE u.email = $1 AND u.status = 'active' FOR UPDATE`,
        [email, RESET_MAIL_GAP_SECONDS],
      );
      if (!user || user.recent) return false;
      const link = await issueLink(tx, user.id, 'password_reset');
      await queueMail(tx, this.mail, {
        cause: `password_reset:${link.tokenHash}`,
        to: user.email,
        ...passwordResetMail({ name: user.name, url: `${this.publicUrl}/#/nova-senha/${link.token}` }),
      });
      return true;
    });
    if (mailed) resetMailed.add(performance.now() - started);
    else await resetMailed.padSince(started);
  }

  /** The new password works at once; every session of the user ends; two-factor stays as it was. */
  async confirmPasswordReset(token: string, password: string, origin: RequestOrigin): Promise<void> {
    await requireLiveLink(this.db, token, 'password_reset');
    checkPassword(password);
    const passwordHash = await hashPassword(password);
    await this.db.tx(async (tx) => {
      const user = await spendLink(tx, token, 'password_reset');
      await tx.query('UPDATE users SET password_hash = $2 WHERE id = $1', [user.id, passwordHash]);
      await voidLinks(tx, user.id, 'password_reset');
      await endSessionsOnNewPassword(tx, user.id, user.email);
      await recordAudit(tx, user.account_id, actorOf(user, origin), {
        action: 'password.reset',
        target: `user:${user.id}`,
      });
    });
  }
}
