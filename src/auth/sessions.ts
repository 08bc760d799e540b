import type { Db } from '../platform/db.js';
import { AppError, unauthorized } from '../platform/errors.js';
import { DUMMY_PASSWORD_HASH, hashSecret, newToken, type PlainSecret, verifyPassword } from './secrets.js';

export const SESSION_TTL_HOURS = 12;
const FREE_FAILURES = 5;
const FAILURE_WINDOW_MINUTES = 15;
const FIRST_LOCK_SECONDS = 30;
const MAX_LOCK_SECONDS = 900;

export interface PanelUser {
  id: number;
  name: string;
  email: string;
}

export interface Session {
  user: PanelUser;
  csrfToken: string;
}

export interface NewSession extends Session {
  token: PlainSecret;
}

export class SessionService {
  constructor(private readonly db: Db) {}

  async login(emailRaw: string, password: string): Promise<NewSession> {
    const email = emailRaw.trim().toLowerCase();
    const [lock] = await this.db.query<{ retry_after: number }>(
      `SELECT ceil(extract(epoch FROM locked_until - now()))::int AS retry_after
         FROM login_failures WHERE email = $1 AND locked_until > now()`,
      [email],
    );
    if (lock) {
      throw new AppError('TOO_MANY_REQUESTS', 'Too many failed logins; try again later', {
        'retry-after': String(Math.max(1, lock.retry_after)),
      });
    }
    const [account] = await this.db.query<PanelUser & { password_hash: string }>(
      'SELECT id, name, email, password_hash FROM accounts WHERE email = $1',
      [email],
    );
    const ok = await verifyPassword(password, account?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!account || !ok) {
      await this.recordFailure(email);
      throw unauthorized('Invalid email or password');
    }
    await this.db.query('DELETE FROM login_failures WHERE email = $1', [email]);
    const token = newToken('', 32);
    const csrfToken = newToken('', 32);
    await this.db.query(
      `INSERT INTO panel_sessions (token_hash, account_id, csrf_token, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(hours => $4))`,
      [hashSecret(token), account.id, csrfToken, SESSION_TTL_HOURS],
    );
    return { token, csrfToken, user: { id: account.id, name: account.name, email: account.email } };
  }

  private async recordFailure(email: string): Promise<void> {
    await this.db.query(
      `INSERT INTO login_failures (email, failures, window_started_at) VALUES ($1, 1, now())
       ON CONFLICT (email) DO UPDATE SET
         failures = CASE WHEN login_failures.window_started_at < now() - make_interval(mins => $2)
                         THEN 1 ELSE login_failures.failures + 1 END,
         window_started_at = CASE WHEN login_failures.window_started_at < now() - make_interval(mins => $2)
                         THEN now() ELSE login_failures.window_started_at END`,
      [email, FAILURE_WINDOW_MINUTES],
    );
    await this.db.query(
      `UPDATE login_failures
          SET locked_until = now() + make_interval(secs => LEAST($2::int, $4::int * power(2, LEAST(failures - $3, 10))::int))
        WHERE email = $1 AND failures >= $3`,
      [email, MAX_LOCK_SECONDS, FREE_FAILURES, FIRST_LOCK_SECONDS],
    );
  }

  async find(token: string): Promise<Session | null> {
    const [row] = await this.db.query<PanelUser & { csrf_token: string }>(
      `SELECT a.id, a.name, a.email, s.csrf_token
         FROM panel_sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = $1 AND s.expires_at > now()`,
      [hashSecret(token)],
    );
    if (!row) return null;
    return { user: { id: row.id, name: row.name, email: row.email }, csrfToken: row.csrf_token };
  }

  async logout(token: string): Promise<void> {
    await this.db.query('DELETE FROM panel_sessions WHERE token_hash = $1', [hashSecret(token)]);
  }
}
