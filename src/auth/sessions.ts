import { type Actor, recordAudit } from '../audit/index.js';
import { hashSecret, newToken, type PlainSecret } from '../platform/crypto/secrets.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, unauthorized } from '../platform/errors/app-error.js';
import { closedAccount } from './account-gate.js';
import {
  type Attempt,
  clearAttempts,
  confirmationKey,
  FAILURE_WINDOW_MINUTES,
  loginKey,
  withAttempt,
} from './attempts.js';
import type { CachedAccount } from './auth-cache.js';
import { dummyPasswordHash, imitatePasswordCheck, verifyPassword } from './passwords.js';
import { type Permission, permissionsOf, type Role } from './roles.js';
import { consumeCode, type TotpService } from './totp.js';
import type { UserRow } from './users/data.js';

export const SESSION_TTL_HOURS = 12;

export interface PanelUser {
  id: number;
  name: string;
  email: string;
  role: Role;
  totpEnabled: boolean;
  /** What the role may do (roles.ts), so the panel shows only what will work. */
  permissions: Permission[];
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

export function panelUser(row: UserRow): PanelUser {
  return {
    id: Number(row.id),
    name: row.name,
    email: row.email,
    role: row.role,
    totpEnabled: row.totp_secret_enc !== null,
    permissions: permissionsOf(row.role),
  };
}

const userActor = (user: { id: number; email: string }, origin: RequestOrigin): Actor => ({
  type: 'user',
  id: user.id,
  label: user.email,
  ...origin,
});

export interface Session {
  user: PanelUser;
  /** The merchant account the user belongs to: every panel route acts on it. */
  accountId: number;
  csrfToken: string;
}

/**
 * Why a confirmation was refused, as its user reads it: the code when two-factor is on; the password otherwise
 * (a code sent by a user without two-factor is not what their confirmation is).
 */
export function confirmationRefusal(totpEnabled: boolean, given: Confirmation): string {
  if (totpEnabled) return 'Wrong or already used two-factor code';
  if (given.password === undefined && given.totpCode !== undefined) {
    return 'Two-factor is off for this user: confirm with the password';
  }
  return 'Wrong password';
}

export interface NewSession extends Session {
  token: PlainSecret;
}

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly totp: TotpService,
    /** The account's standing (the auth cache's: this module does not read the accounts table). */
    private readonly standing: (accountId: number) => Promise<CachedAccount | null>,
  ) {}

  /**
   * True when the confirmation is the logged-in user's: the two-factor code when two-factor is on (each code
   * works once), else the password. Panel withdrawals are confirmed with it.
   */
  async confirm(user: { id: number; accountId: number }, given: Confirmation): Promise<boolean> {
    // a stolen session must not become a way to guess the password or the code: failures count like logins',
    // per account (every session of the account shares one allowance)
    const key = confirmationKey(user.accountId);
    return withAttempt(this.db, key, 'confirmations', async (attempt) => {
      const ok = await this.checkConfirmation(user.id, given, attempt.turn);
      if (ok) await clearAttempts(this.db, key);
      return ok;
    });
  }

  private async checkConfirmation(userId: number, given: Confirmation, turn: number): Promise<boolean> {
    const [user] = await this.db.query<{ password_hash: string | null; totp_secret_enc: string | null }>(
      "SELECT password_hash, totp_secret_enc FROM users WHERE id = $1 AND status = 'active'",
      [userId],
    );
    const secret = user ? this.totp.secretOf(user) : null;
    if (secret) return given.totpCode !== undefined && consumeCode(this.db, userId, secret, given.totpCode);
    if (given.password === undefined) return false;
    return verifyPassword(given.password, user?.password_hash ?? dummyPasswordHash(), turn);
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
    const [user] = await this.db.query<UserRow>(
      "SELECT * FROM users WHERE email = $1 AND status = 'active'",
      [email],
    );
    // known or not, the check waits by the email's turn (passwords.ts): the same wait either way
    const ok = user?.password_hash
      ? await verifyPassword(password, user.password_hash, attempt.turn)
      : await imitatePasswordCheck(attempt.turn);
    if (!user) throw unauthorized('Invalid email or password');
    const actor = userActor(user, origin);
    const failed = async (message: string) => {
      await recordAudit(this.db, user.account_id, actor, { action: 'login.failed', target: null });
      return unauthorized(message);
    };
    if (!ok) throw await failed('Invalid email or password');
    const secret = this.totp.secretOf(user);
    if (secret) {
      if (totpCode === undefined || totpCode === '') {
        await attempt.uncount();
        throw new AppError('TOTP_REQUIRED', 'Enter the 6-digit code of your authenticator app');
      }
      if (!(await consumeCode(this.db, user.id, secret, totpCode))) {
        throw await failed('Invalid or already used two-factor code');
      }
    }
    // a closed account's people open no session (its sessions are refused anyway): said only to the right
    // password and code, as the panel's other refusals of a closed account say it
    const account = await this.standing(Number(user.account_id));
    if (!account || account.status === 'closed') throw closedAccount();
    return this.db.tx(async (tx) => {
      await clearAttempts(tx, loginKey(email));
      await recordAudit(tx, user.account_id, actor, { action: 'login.succeeded', target: null });
      return startSession(tx, user);
    });
  }

  async find(token: string): Promise<Session | null> {
    const [row] = await this.db.query<UserRow & { csrf_token: string }>(
      `SELECT u.*, s.csrf_token
         FROM panel_sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > now()`,
      [hashSecret(token)],
    );
    if (!row) return null;
    return { user: panelUser(row), accountId: Number(row.account_id), csrfToken: row.csrf_token };
  }

  async logout(token: string, session: Session, origin: RequestOrigin): Promise<void> {
    await this.db.tx(async (tx) => {
      await tx.query('DELETE FROM panel_sessions WHERE token_hash = $1', [hashSecret(token)]);
      await recordAudit(tx, session.accountId, userActor(session.user, origin), {
        action: 'logout',
        target: null,
      });
    });
  }
}

/** A new panel session for an active user (a login, or an accepted invitation), in the caller's transaction. */
export async function startSession(tx: Queryable, user: UserRow): Promise<NewSession> {
  const token = newToken('', 32);
  const csrfToken = newToken('', 32);
  await tx.query(
    `INSERT INTO panel_sessions (token_hash, account_id, user_id, csrf_token, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5))`,
    [hashSecret(token), user.account_id, user.id, csrfToken, SESSION_TTL_HOURS],
  );
  await tx.query('UPDATE users SET last_login_at = now() WHERE id = $1', [user.id]);
  return { token, csrfToken, user: panelUser(user), accountId: Number(user.account_id) };
}

/** A password changed: every session opened with the old one ends, and so does a lock its guesses set. */
export async function endSessionsOnNewPassword(tx: Queryable, userId: number, email: string): Promise<void> {
  await tx.query('DELETE FROM panel_sessions WHERE user_id = $1', [userId]);
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
