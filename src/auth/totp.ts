import { Secret, TOTP } from 'otpauth';
import { type Actor, recordAudit } from '../audit/index.js';
import { seal, unseal } from '../platform/crypto/sealed.js';
import { constantTimeEqual } from '../platform/crypto/secrets.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { conflict, validation } from '../platform/errors/app-error.js';
import { clearAttempts, confirmationKey, withAttempt } from './attempts.js';

const ISSUER = 'Gateway';
const PERIOD = 30;
/** One step either side: a code typed as it rolls over still works, for at most 90 s in all. */
const WINDOW = 1;
const CODE = /^\d{6}$/;

function totpFor(secretBase32: string, label = ''): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** The time step a code belongs to (RFC 6238), or null when it matches none within the window. */
export function matchingStep(secretBase32: string, code: string, nowMs = Date.now()): number | null {
  if (!CODE.test(code)) return null;
  const delta = totpFor(secretBase32).validate({ token: code, timestamp: nowMs, window: WINDOW });
  return delta === null ? null : Math.floor(nowMs / 1000 / PERIOD) + delta;
}

/**
 * Whether `code` is the code of `step` (a step already recorded, such as the one that enrolled the authenticator),
 * and that step is at most `maxAgeSteps` old.
 */
export function isCodeOfStep(
  secretBase32: string,
  code: string,
  step: number,
  maxAgeSteps: number,
  nowMs = Date.now(),
): boolean {
  if (!CODE.test(code) || Math.floor(nowMs / 1000 / PERIOD) - step > maxAgeSteps) return false;
  return constantTimeEqual(totpFor(secretBase32).generate({ timestamp: step * PERIOD * 1000 }), code);
}

/** A new TOTP secret and its otpauth:// URL for an authenticator app (the label names the person). */
export function newTotpSecret(label: string): { secret: string; otpauthUrl: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUrl: totpFor(secret, label).toString() };
}

/**
 * Accepts a code once: its step must be later than the last accepted one, recorded in the same statement
 * (so two requests with one code cannot both pass, even on two processes).
 */
export async function consumeCode(q: Queryable, userId: number, secretBase32: string, code: string) {
  const step = matchingStep(secretBase32, code);
  if (step === null) return false;
  const rows = await q.query(
    'UPDATE users SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2 RETURNING id',
    [userId, step],
  );
  return rows.length === 1;
}

interface TotpRow {
  account_id: number;
  email: string;
  totp_secret_enc: string | null;
  totp_pending_enc: string | null;
}

/** Two-factor login setup (decisions.md, Two-factor login). Secrets are sealed under SECRETS_KEY at rest. */
export class TotpService {
  constructor(
    private readonly db: Db,
    private readonly key: Buffer,
  ) {}

  /** The enabled secret, opened, or null when two-factor is off. */
  secretOf(row: { totp_secret_enc: string | null }): string | null {
    return row.totp_secret_enc ? unseal(this.key, row.totp_secret_enc) : null;
  }

  async setup(userId: number): Promise<{ secret: string; otpauthUrl: string }> {
    const secret = new Secret({ size: 20 }).base32;
    const [row] = await this.db.query<{ email: string }>(
      `UPDATE users SET totp_pending_enc = $2 WHERE id = $1 AND totp_secret_enc IS NULL RETURNING email`,
      [userId, seal(this.key, secret)],
    );
    if (!row) throw conflict('Two-factor login is already on; turn it off first to set up a new device');
    return { secret, otpauthUrl: totpFor(secret, row.email).toString() };
  }

  async enable(userId: number, code: string, actor: Actor): Promise<void> {
    await this.db.tx(async (tx) => {
      const row = await lockUser(tx, userId);
      if (row.totp_secret_enc) throw conflict('Two-factor login is already on');
      if (!row.totp_pending_enc)
        throw conflict('No set-up is waiting for a code: start with POST /api/auth/totp/setup');
      const pending = unseal(this.key, row.totp_pending_enc);
      if (!(await consumeCode(tx, userId, pending, code))) {
        throw validation('The code does not match; check the authenticator app and the device clock');
      }
      await tx.query(
        'UPDATE users SET totp_secret_enc = totp_pending_enc, totp_pending_enc = NULL WHERE id = $1',
        [userId],
      );
      await recordAudit(tx, row.account_id, actor, { action: 'totp.enabled', target: null });
    });
  }

  async disable(userId: number, code: string, actor: Actor): Promise<void> {
    // counted like a withdrawal's confirmation: a stolen session cannot guess its way to turning two-factor off
    const [owner] = await this.db.query<{ account_id: number }>(
      'SELECT account_id FROM users WHERE id = $1',
      [userId],
    );
    if (!owner) throw validation('No such user');
    const key = confirmationKey(Number(owner.account_id));
    await withAttempt(this.db, key, 'confirmations', () =>
      this.db.tx(async (tx) => {
        const row = await lockUser(tx, userId);
        const secret = this.secretOf(row);
        if (!secret) throw conflict('Two-factor login is not on');
        if (!(await consumeCode(tx, userId, secret, code))) {
          throw validation('The code does not match or was used already');
        }
        await tx.query('UPDATE users SET totp_secret_enc = NULL, totp_pending_enc = NULL WHERE id = $1', [
          userId,
        ]);
        await clearAttempts(tx, key);
        await recordAudit(tx, row.account_id, actor, { action: 'totp.disabled', target: null });
      }),
    );
  }
}

async function lockUser(tx: Queryable, userId: number): Promise<TotpRow> {
  const [row] = await tx.query<TotpRow>(
    'SELECT account_id, email, totp_secret_enc, totp_pending_enc FROM users WHERE id = $1 FOR UPDATE',
    [userId],
  );
  if (!row) throw validation('No such user');
  return row;
}
