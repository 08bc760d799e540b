import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './parse.js';

// The secrets among the settings: generated development values, the sealing key's form, production strength.

/** A development secret generated once and kept in DATA_DIR, so restarts keep decrypting what was stored. */
export function devSecret(dataDir: string, file: string, bytes: number): string {
  const p = path.join(dataDir, file);
  if (existsSync(p)) return readFileSync(p, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  // written whole under a temporary name, then linked into place: processes starting together never read a
  // file another one has created but not yet written (they all read the one that won the link)
  const tmp = `${p}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, randomBytes(bytes).toString('base64'), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process created it first
  } finally {
    unlinkSync(tmp);
  }
  return readFileSync(p, 'utf8').trim();
}

export function secretsKey(raw: string): Buffer {
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== raw.trim().replace(/=+$/, '')) {
    throw new ConfigError(
      'SECRETS_KEY must be exactly 32 bytes encoded in base64 (e.g. `openssl rand -base64 32`)',
    );
  }
  return key;
}

/**
 * A rough upper bound on a text secret's entropy: its length times log2 of the character classes it draws from
 * (a 64-character hex string ≈ 256 bits, 43 base64 characters ≈ 256 bits). Text of fewer than 10 distinct
 * characters ("aaaa…", "abab…") is not random whatever its length, and scores 0.
 */
function entropyBits(text: string): number {
  if (new Set(text).size < 10) return 0;
  const classes = [/[0-9]/, /[a-f]/, /[g-z]/, /[A-Z]/, /[^0-9a-zA-Z]/];
  const sizes = [10, 6, 20, 26, 33];
  const pool = classes.reduce((sum, re, i) => sum + (re.test(text) ? sizes[i]! : 0), 0);
  return text.length * Math.log2(pool);
}

const MIN_SECRET_BITS = 256;

export function requireStrongSecrets(postbackSecret: string | null, secretsKeyText: string): void {
  if (postbackSecret !== null && entropyBits(postbackSecret) < MIN_SECRET_BITS) {
    throw new ConfigError(
      'POSTBACK_SECRET must carry at least 32 bytes of entropy in production (e.g. `openssl rand -base64 32`)',
    );
  }
  const key = Buffer.from(secretsKeyText, 'base64');
  if (key.length === 32 && new Set(key).size < 16) {
    throw new ConfigError(
      'SECRETS_KEY must be 32 random bytes in production (e.g. `openssl rand -base64 32`)',
    );
  }
}
