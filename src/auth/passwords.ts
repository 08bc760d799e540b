import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import PQueue from 'p-queue';
import { validation } from '../platform/errors/app-error.js';

// scrypt, N=2^15 r=8 p=1 (32 MiB): OWASP's minimum-memory profile (its cost: docs/performance.md).
const SCRYPT = { N: 2 ** 15, r: 8, p: 1 } as const;
/**
 * New hashes under NODE_ENV=test: N=2^10 (1 MiB, ~4 ms of CPU instead of ~130), as Devise's and Django's test
 * settings lower their hashes' cost. A check reads the cost from the stored hash, so a hash keeps the cost it was
 * made with; NODE_ENV=test is not a production mode (the sandbox and dev secrets come with it too).
 */
const TEST_SCRYPT = { N: 2 ** 10, r: 8, p: 1 } as const;
const MAXMEM = 64 * 1024 * 1024;
const KEYLEN = 32;

/** The cost new hashes are made with, read at each hash (a test may change NODE_ENV around one). */
function passwordCost(): { N: number; r: number; p: number } {
  return process.env.NODE_ENV === 'test' ? TEST_SCRYPT : SCRYPT;
}

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEYLEN, { N, r, p, maxmem: MAXMEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const { N, r, p } = passwordCost();
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Password checks run at most PASSWORD_CHECKS_AT_ONCE at a time (each holds a libuv thread and 32 MiB for
 * tens of milliseconds): a login flood waits here instead of taking every thread of the pool the deliveries'
 * DNS lookups also need, and every core.
 *
 * The wait is fair by key (an email, or an account's confirmations), not first come first served: a check
 * waits by its turn, the number of attempts its key has made in the current failure window, this one included
 * (attempts.ts counts them in the database before the check, so the turn holds across processes). The lowest
 * turn is served first, and arrival order only within a turn. A key checks one attempt at a time per process
 * (attempts.ts), so among the checks waiting at one moment every key has at most one and a plain round-robin
 * over them would be first come first served; counting turns over the window instead keeps the round-robin
 * over time: an email flooded with wrong passwords has spent its early turns, and a user's first attempt goes
 * before all of them.
 *
 * Checks past their key's first turn (a retry, or a guess after a wrong one) also share RETRIES_AT_ONCE of
 * the slots, and none starts while a first attempt is hashing: a first attempt finds a slot free however many
 * guesses wait, and its hash shares the cores with at most the rest of one of theirs.
 */
export const PASSWORD_CHECKS_AT_ONCE = 2;
export const RETRIES_AT_ONCE = 1;
const passwordChecks = new PQueue({ concurrency: PASSWORD_CHECKS_AT_ONCE });
const retries = new PQueue({ concurrency: RETRIES_AT_ONCE });
/** First attempts hashing now: while there is one, no retry starts (the one running finishes). */
let firstTurnsHashing = 0;
/** Checks (and imitations) that have left the wait so far: the difference tells how many went first. */
let served = 0;

/**
 * Each check as it leaves the wait, for metrics and tests: its turn, whether it was an imitation (an unknown
 * email), how many checks were hashing and how many waiting when it arrived, and how many of those waiting or
 * of later ones left before it.
 */
export const passwordCheckChannel = diagnostics.channel('gateway.auth.password-check');
export interface PasswordCheckServed {
  turn: number;
  imitation: boolean;
  hashingOnArrival: number;
  waitingOnArrival: number;
  servedBefore: number;
  waitedMs: number;
}

/**
 * Runs `task` when its turn comes among the password checks. An imitation waits exactly as a check of its turn
 * would, behind the same checks, but leaves without holding a slot (its task then runs outside the gate).
 */
async function inTurn<T>(turn: number, imitation: boolean, task: () => Promise<T>): Promise<T> {
  const arrived = performance.now();
  const hashingOnArrival = passwordChecks.pending;
  const waitingOnArrival = passwordChecks.size + retries.size;
  const servedOnArrival = served;
  const leave = () => {
    const servedBefore = served - servedOnArrival;
    served++;
    if (passwordCheckChannel.hasSubscribers) {
      const waitedMs = performance.now() - arrived;
      passwordCheckChannel.publish({
        turn,
        imitation,
        hashingOnArrival,
        waitingOnArrival,
        servedBefore,
        waitedMs,
      } satisfies PasswordCheckServed);
    }
  };
  // p-queue serves the highest priority first, in arrival order among equals
  const order = Math.max(1, Math.floor(turn));
  const priority = -order;
  const slot = (): Promise<T | undefined> =>
    imitation
      ? passwordChecks.add(async () => leave(), { priority }).then(() => undefined)
      : passwordChecks.add(
          async () => {
            leave();
            if (order > 1) return task();
            firstTurnsHashing++;
            retries.pause();
            try {
              return await task();
            } finally {
              if (--firstTurnsHashing === 0) retries.start();
            }
          },
          { priority },
        );
  // a retry holds its lane's place until its check is done (an imitation, until its turn came)
  const result = await (order === 1 ? slot() : retries.add(slot, { priority }));
  return imitation ? task() : (result as T);
}

/** How long a password hash has taken lately, without the wait for its turn (moving average). */
let recentHashMs = 50;

/**
 * Checks `password` against `stored` when its turn comes: `turn` is the number of its key's attempt in the
 * current failure window (1: the first), as attempts.ts counts it.
 */
export async function verifyPassword(password: string, stored: string, turn = 1): Promise<boolean> {
  const [alg, n, r, p, salt, key] = stored.split('$');
  if (alg !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await inTurn(turn, false, async () => {
    const started = performance.now();
    const hashed = await scryptAsync(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
    recentHashMs = 0.8 * recentHashMs + 0.2 * (performance.now() - started);
    return hashed;
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * The answer for an email that has no account: false, after as long as a password check of the same turn
 * takes, so timing does not reveal which emails exist, but without computing a hash. It waits for its turn
 * among the real checks like one of them (the same wait, behind the same checks), takes no slot when its turn
 * comes, and then answers after about as long as a hash has taken lately (a moving average, ±15 %). A flood
 * of logins with made-up emails then costs no CPU and holds up no real check (hashing a dummy did both: 32
 * such clients made a correct login wait ~2 s behind their hashes).
 */
export async function imitatePasswordCheck(turn = 1): Promise<false> {
  return inTurn(turn, true, () => {
    const ms = recentHashMs * (0.85 + 0.3 * Math.random());
    return new Promise<false>((resolve) => setTimeout(() => resolve(false), ms));
  });
}

/**
 * A hash to compare against when there is no stored one (an account gone while its session lived), of the cost
 * new hashes have.
 */
export function dummyPasswordHash(): string {
  const { N, r, p } = passwordCost();
  return `scrypt$${N}$${r}$${p}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;
}

/** The password rules of every way a password is set (accounts create, invitations, resets). */
export function checkPassword(password: string): void {
  if (password.length < 8) throw validation('password must have at least 8 characters');
  if (password.trim() === '') throw validation('password must not be only spaces');
}
