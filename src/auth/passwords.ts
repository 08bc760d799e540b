import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import pLimit from 'p-limit';

// scrypt, N=2^15 r=8 p=1 (32 MiB): OWASP's minimum-memory profile (its cost: docs/performance.md).
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEYLEN = 32;

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEYLEN, { N, r, p, maxmem: SCRYPT.maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Password checks run at most PASSWORD_CHECKS_AT_ONCE at a time (each holds a libuv thread and 32 MiB for
 * tens of milliseconds): a login flood queues here, first come first served, instead of taking every thread of the pool
 * the deliveries' DNS lookups also need, and every core.
 */
export const PASSWORD_CHECKS_AT_ONCE = 2;
const passwordChecks = pLimit(PASSWORD_CHECKS_AT_ONCE);

/** How long a password check has taken lately, waiting for the gate included (moving average). */
let recentCheckMs = 60;

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, key] = stored.split('$');
  if (alg !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const started = performance.now();
  const actual = await passwordChecks(() =>
    scryptAsync(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p)),
  );
  recentCheckMs = 0.8 * recentCheckMs + 0.2 * (performance.now() - started);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * The answer for an email that has no account: false, after about as long as a password check takes lately,
 * so timing does not reveal which emails exist, but without computing a hash. A flood of logins with made-up
 * emails then costs no CPU and takes no place in the queue of real password checks (hashing a dummy did both:
 * 32 such clients made a correct login wait ~2 s behind their hashes).
 */
export function imitatePasswordCheck(): Promise<false> {
  const ms = recentCheckMs * (0.85 + 0.3 * Math.random());
  return new Promise((resolve) => setTimeout(() => resolve(false), ms));
}

/** A hash to compare against when there is no stored one (an account gone while its session lived). */
export const DUMMY_PASSWORD_HASH =
  'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
