import { unseal } from '../crypto/sealed.js';
import type { Queryable } from '../db/db.js';
import { ConfigError } from './parse.js';

/**
 * SECRETS_KEY must be the key the stored secrets were sealed with. A process started with another key (a
 * lost dev key file, a mistyped setting) answered /health and then failed every webhook attempt ("could not
 * be prepared") until its deliveries ran out of attempts: merchants lost their notifications. The newest
 * webhook secret and two-factor secret are opened at start; one that does not open stops the process.
 */
export async function checkSecretsKey(db: Queryable, key: Buffer): Promise<void> {
  const rows = await db.query<{ what: string; sealed: string }>(
    `(SELECT 'webhook ' || id AS what, secret_enc AS sealed FROM webhooks
       WHERE deleted_at IS NULL ORDER BY id DESC LIMIT 1)
     UNION ALL
     (SELECT 'user ' || id || ' (two-factor)', totp_secret_enc FROM users
       WHERE totp_secret_enc IS NOT NULL ORDER BY id DESC LIMIT 1)`,
  );
  for (const row of rows) {
    try {
      unseal(key, row.sealed);
    } catch {
      throw new ConfigError(
        `SECRETS_KEY does not open the secrets already stored (${row.what}): start with the key they were sealed with`,
      );
    }
  }
}
