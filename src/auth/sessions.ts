import { type Actor, recordAudit } from '../audit/audit.data.js';
import { hashSecret, newToken, type PlainSecret } from '../platform/crypto/secrets.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, unauthorized } from '../platform/http/errors.js';
import {
  type Attempt,
  clearAttempts,
  confirmationKey,
  FAILURE_WINDOW_MINUTES,
  loginKey,
  withAttempt,
} from './attempts.js';
import { DUMMY_PASSWORD_HASH, imitatePasswordCheck, verifyPassword } from './passwords.js';
import { consumeCode, type TotpService } from './totp.js';

export const SESSION_TTL_HOURS = 12;

export interface PanelUser {
  id: number;
  name: string;
  email: string;
  totpEnabled: boolean;
}

/** Where a login or logout came from (the audit log's actor is built from it once the user is known). */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

/** What confirms a panel withdrawal: the password, or the two-factor code when two-factor is on. */
export interface Confirmation {
  password?: string | undefined;
  totpCode?: string | undefined;
}

const userActor = (user: { id: number; email: string }, origin: RequestOrigin): Actor => ({
  type: 'user',
  id: user.id,
  label: user.email,
  ...origin,
});

export interface Session {
  user: PanelUser;
  csrfToken: string;
}

export interface NewSession extends Session {
  token: PlainSecret;
}

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly totp: TotpService,
  ) {}

  /**
   * True when the confirmation is the logged-in user's: the two-factor code when two-factor is on (each code
   * works once), else the password. Panel withdrawals are confirmed with it.
   */
  async confirm(accountId: number, given: Confirmation): Promise<boolean> {
    // a stolen session must not become a way to guess the password or the code: failures count like logins'
    return withAttempt(this.db, confirmationKey(accountId), 'confirmations', async (attempt) => {
      const ok = await this.checkConfirmation(accountId, given, attempt.turn);
      if (ok) await clearAttempts(this.db, confirmationKey(accountId));
      return ok;
    });
  }

  private async checkConfirmation(accountId: number, given: Confirmation, turn: number): Promise<boolean> {
    const [account] = await this.db.query<{ password_hash: string; totp_secret_enc: string | null }>(
      'SELECT password_hash, totp_secret_enc FROM accounts WHERE id = $1',
      [accountId],
    );
    const secret = account ? this.totp.secretOf(account) : null;
    if (secret)
      return given.totpCode !== undefined && consumeCode(this.db, accountId, secret, given.totpCode);
    if (given.password === undefined) return false;
    return verifyPassword(given.password, account?.password_hash ?? DUMMY_PASSWORD_HASH, turn);
  }

  /**
   * Email and password, then the two-factor code when it is on: missing → 401 TOTP_REQUIRED (not a failure:
   * the password was right), wrong or replayed → 401 like a wrong password (a failed login, audited).
   */
  login(
    emailRaw: string,
    password: string,
    totpCode: string | undefined,
    origin: RequestOrigin,
  ): Promise<NewSession> {
    const email = emailRaw.trim().toLowerCase();
    return withAttempt(this.db, loginKey(email), 'logins', (attempt) =>
      this.checkLogin(email, password, totpCode, origin, attempt),
    );
  }

  private async checkLogin(
    email: string,
    password: string,
    totpCode: string | undefined,
    origin: RequestOrigin,
    attempt: Attempt,
  ): Promise<NewSession> {
    const [account] = await this.db.query<
      Omit<PanelUser, 'totpEnabled'> & { password_hash: string; totp_secret_enc: string | null }
    >('SELECT id, name, email, password_hash, totp_secret_enc FROM accounts WHERE email = $1', [email]);
    // known or not, the check waits by the email's turn (passwords.ts): the same wait either way
    const ok = account
      ? await verifyPassword(password, account.password_hash, attempt.turn)
      : await imitatePasswordCheck(attempt.turn);
    if (!account) throw unauthorized('Invalid email or password');
    const actor = userActor(account, origin);
    const failed = async (message: string) => {
      await recordAudit(this.db, account.id, actor, { action: 'login.failed', target: null });
      return unauthorized(message);
    };
    if (!ok) throw await failed('Invalid email or password');
    const secret = this.totp.secretOf(account);
    if (secret) {
      if (totpCode === undefined || totpCode === '') {
        await attempt.uncount();
        throw new AppError('TOTP_REQUIRED', 'Enter the 6-digit code of your authenticator app');
      }
      if (!(await consumeCode(this.db, account.id, secret, totpCode))) {
        throw await failed('Invalid or already used two-factor code');
      }
    }
    const token = newToken('', 32);
    const csrfToken = newToken('', 32);
    await this.db.tx(async (tx) => {
      await clearAttempts(tx, loginKey(email));
      await tx.query(
        `INSERT INTO panel_sessions (token_hash, account_id, csrf_token, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(hours => $4))`,
        [hashSecret(token), account.id, csrfToken, SESSION_TTL_HOURS],
      );
      await recordAudit(tx, account.id, actor, { action: 'login.succeeded', target: null });
    });
    return {
      token,
      csrfToken,
      user: { id: account.id, name: account.name, email: account.email, totpEnabled: secret !== null },
    };
  }

  async find(token: string): Promise<Session | null> {
    const [row] = await this.db.query<PanelUser & { csrf_token: string }>(
      `SELECT a.id, a.name, a.email, a.totp_secret_enc IS NOT NULL AS "totpEnabled", s.csrf_token
         FROM panel_sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = $1 AND s.expires_at > now()`,
      [hashSecret(token)],
    );
    if (!row) return null;
    return {
      user: { id: Number(row.id), name: row.name, email: row.email, totpEnabled: row.totpEnabled },
      csrfToken: row.csrf_token,
    };
  }

  async logout(token: string, user: PanelUser, origin: RequestOrigin): Promise<void> {
    await this.db.tx(async (tx) => {
      await tx.query('DELETE FROM panel_sessions WHERE token_hash = $1', [hashSecret(token)]);
      await recordAudit(tx, user.id, userActor(user, origin), { action: 'logout', target: null });
    });
  }
}

/** A password changed: every session opened with the old one ends, and so does a lock its guesses set. */
export async function endSessionsOnNewPassword(
  tx: Queryable,
  accountId: number,
  email: string,
): Promise<void> {
  await tx.query('DELETE FROM panel_sessions WHERE account_id = $1', [accountId]);
  await tx.query('DELETE FROM login_failures WHERE email = $1', [email]);
}

export const AUTH_CLEANUP_EVERY_MS = 10 * 60 * 1000;

/**
 * Deletes expired panel sessions and failure rows whose window and lock are both over (they would be reset
 * on the next attempt anyway), in chunks, so junk emails of a login flood do not stay forever.
 */
export async function deleteExpiredAuthRows(db: Queryable): Promise<number> {
  let total = 0;
  for (const sql of [
    `DELETE FROM panel_sessions WHERE token_hash IN (
       SELECT token_hash FROM panel_sessions WHERE expires_at < now() LIMIT 10000) RETURNING 1`,
    `DELETE FROM login_failures WHERE email IN (
       SELECT email FROM login_failures
        WHERE window_started_at < now() - make_interval(mins => ${FAILURE_WINDOW_MINUTES})
          AND (locked_until IS NULL OR locked_until < now())
        LIMIT 10000) RETURNING 1`,
  ]) {
    for (;;) {
      const rows = await db.query(sql);
      total += rows.length;
      if (rows.length < 10000) break;
    }
  }
  return total;
}
