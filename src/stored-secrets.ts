import { newestSealedTwoFactorSecret } from './auth/index.js';
import { newestSealedCardToken } from './cards/index.js';
import { checkSecretsKey } from './platform/config/secrets-key-check.js';
import type { Queryable } from './platform/db/db.js';
import { newestSealedSecret } from './webhooks/index.js';

/**
 * SECRETS_KEY opens the secrets already stored (each module's newest sealed one), or a ConfigError naming the
 * first that it does not: run by every process that seals or opens them (`serve`, `worker`, and the commands
 * that say they do, `secrets: true`) before it does. A command that sealed a new secret with another key
 * would leave no key that opens them all, and no gateway could start again.
 */
export async function checkStoredSecrets(db: Queryable, key: Buffer): Promise<void> {
  checkSecretsKey(key, [
    await newestSealedSecret(db),
    await newestSealedTwoFactorSecret(db),
    await newestSealedCardToken(db),
  ]);
}
