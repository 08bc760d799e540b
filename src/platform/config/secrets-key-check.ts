import { unseal } from '../crypto/sealed.js';
import { ConfigError } from './parse.js';

/** A secret stored sealed, and what it belongs to (for the message). */
export interface SealedSample {
  what: string;
  sealed: string;
}

/**
 * SECRETS_KEY must be the key the stored secrets were sealed with. A process started with another key (a
 * lost dev key file, a mistyped setting) answered /health and then failed every webhook attempt ("could not
 * be prepared") until its deliveries ran out of attempts: merchants lost their notifications. The modules that
 * seal secrets hand in their newest ones at start; one that does not open stops the process.
 */
export function checkSecretsKey(key: Buffer, samples: readonly (SealedSample | null)[]): void {
  for (const sample of samples) {
    if (!sample) continue;
    try {
      unseal(key, sample.sealed);
    } catch {
      throw new ConfigError(
        `SECRETS_KEY does not open the secrets already stored (${sample.what}): start with the key they were sealed with`,
      );
    }
  }
}
