import {
  clearAttempts,
  imitatePasswordCheck,
  isCodeOfStep,
  matchingStep,
  verifyPassword,
  withAttempt,
} from '../auth/index.js';
import { unseal } from '../platform/crypto/sealed.js';
import { hashSecret, newToken, type PlainSecret } from '../platform/crypto/secrets.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';
import { type OperatorActor, recordOperatorAudit } from './audit.js';
import {
  consumeEnrolmentStep,
  consumeOperatorStep,
  ENROLMENT_CODE_STEPS,
  findOperatorByEmail,
  type OperatorRow,
} from './data.js';
import type { OperatorRole } from './roles.js';

/** A console session lasts a working shift, and ends sooner on logout. */
export const OPERATOR_SESSION_HOURS = 8;

export interface Operator {
  id: number;
  email: string;
  role: OperatorRole;
}

export interface OperatorSession {
  operator: Operator;
  csrfToken: string;
}

export interface NewOperatorSession extends OperatorSession {
  token: PlainSecret;
}

const operatorOf = (row: OperatorRow): Operator => ({ id: Number(row.id), email: row.email, role: row.role });
/** Failed operator logins are counted apart from merchant users' (the same table, another key space). */
export const attemptKey = (email: string) => `ops:${email}`;
const wrong = () => new AppError('INVALID_CREDENTIALS', 'Invalid e-mail, password or code');

export class OperatorSessions {
  constructor(
    private readonly db: Db,
    private readonly secretsKey: Buffer,
  ) {}

  /**
   * E-mail and password first (a wrong one → INVALID_CREDENTIALS, whether the e-mail is known or not), then the
   * TOTP code every operator has: none → TOTP_REQUIRED (the password was right), wrong or replayed →
   * INVALID_CREDENTIALS (the code that enrolled the authenticator is accepted once more, for the first login). Failures are counted and locked as merchant logins are; each is audited.
   */
  login(
    emailRaw: string,
    password: string,
    totpCode: string | undefined,
    origin: { ip: string | null; userAgent: string | null },
  ): Promise<NewOperatorSession> {
    const email = emailRaw.trim().toLowerCase();
    return withAttempt(this.db, attemptKey(email), 'logins', async (attempt) => {
      const found = await findOperatorByEmail(this.db, email);
      const row = found?.status === 'active' ? found : null;
      const ok = row?.password_hash
        ? await verifyPassword(password, row.password_hash, attempt.turn)
        : await imitatePasswordCheck(attempt.turn);
      if (!row) throw wrong();
      const actor: OperatorActor = { id: row.id, email: row.email, ...origin };
      if (!ok) {
        await recordOperatorAudit(this.db, actor, { action: 'login.failed' });
        throw wrong();
      }
      if (totpCode === undefined || totpCode === '') {
        await attempt.uncount();
        throw new AppError('TOTP_REQUIRED', 'Enter the 6-digit code of your authenticator app');
      }
      const secret = row.totp_secret_enc ? unseal(this.secretsKey, row.totp_secret_enc) : null;
      const step = secret ? matchingStep(secret, totpCode) : null;
      // the first login may still use the code that enrolled the authenticator, for some minutes (the console
      // says so on the way from enrolment to the login form)
      const enrolment =
        secret !== null &&
        row.last_login_at === null &&
        isCodeOfStep(secret, totpCode, row.totp_last_step, ENROLMENT_CODE_STEPS);
      const accepted =
        (step !== null && (await consumeOperatorStep(this.db, row.id, step))) ||
        (enrolment && (await consumeEnrolmentStep(this.db, row.id, row.totp_last_step)));
      if (!accepted) {
        await recordOperatorAudit(this.db, actor, { action: 'login.failed' });
        throw wrong();
      }
      return this.db.tx(async (tx) => {
        await clearAttempts(tx, attemptKey(email));
        await recordOperatorAudit(tx, actor, { action: 'login.succeeded' });
        return startOperatorSession(tx, row);
      });
    });
  }

  async find(token: string): Promise<OperatorSession | null> {
    const [row] = await this.db.query<OperatorRow & { csrf_token: string }>(
      `SELECT o.*, s.csrf_token
         FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
        WHERE s.token_hash = $1 AND s.expires_at > now() AND o.status = 'active'`,
      [hashSecret(token)],
    );
    return row ? { operator: operatorOf(row), csrfToken: row.csrf_token } : null;
  }

  /** An operator tried what their role does not allow: the refusal is in the audit log. */
  async recordDenied(actor: OperatorActor, what: string, accountId: number | null): Promise<void> {
    await recordOperatorAudit(this.db, actor, {
      action: 'denied',
      target: what,
      ...(accountId !== null && Number.isSafeInteger(accountId) ? { accountId } : {}),
      after: { role: 'insufficient' },
    });
  }

  async logout(token: string, actor: OperatorActor): Promise<void> {
    await this.db.tx(async (tx) => {
      await tx.query('DELETE FROM operator_sessions WHERE token_hash = $1', [hashSecret(token)]);
      await recordOperatorAudit(tx, actor, { action: 'logout' });
    });
  }
}

async function startOperatorSession(tx: Queryable, row: OperatorRow): Promise<NewOperatorSession> {
  const token = newToken('', 32);
  const csrfToken = newToken('', 32);
  await tx.query(
    `INSERT INTO operator_sessions (token_hash, operator_id, csrf_token, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4))`,
    [hashSecret(token), row.id, csrfToken, OPERATOR_SESSION_HOURS],
  );
  await tx.query('UPDATE operators SET last_login_at = now() WHERE id = $1', [row.id]);
  return { token, csrfToken, operator: operatorOf(row) };
}
