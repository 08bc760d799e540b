import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hashPassword,
  imitatePasswordCheck,
  type PasswordCheckServed,
  passwordCheckChannel,
  verifyPassword,
} from '../../src/auth/passwords.js';

let stored: string;
const served: PasswordCheckServed[] = [];
const listen = (message: unknown) => served.push(message as PasswordCheckServed);

/** A hash made as a gateway outside NODE_ENV=test makes it (the turn tests need checks that take a while). */
async function productionHash(password: string): Promise<string> {
  const was = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    return await hashPassword(password);
  } finally {
    process.env.NODE_ENV = was;
  }
}

beforeAll(async () => {
  stored = await productionHash('the right password');
  passwordCheckChannel.subscribe(listen);
});
afterAll(() => passwordCheckChannel.unsubscribe(listen));

describe('password hashes', () => {
  it("are scrypt at OWASP's minimum-memory cost, and cheaper only under NODE_ENV=test", async () => {
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(await verifyPassword('the right password', stored)).toBe(true);
    expect(await verifyPassword('the wrong password', stored)).toBe(false);
    const cheap = await hashPassword('the right password');
    expect(process.env.NODE_ENV).toBe('test');
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('the right password', cheap)).toBe(true);
    // a check reads the cost from the stored hash: one made under test stays checkable, and the other way round
    expect(await verifyPassword('the wrong password', cheap)).toBe(false);
  });
});

describe('the wait for a password check', () => {
  it("serves a key's first turn before every retry that waits, whatever came first", async () => {
    served.length = 0;
    const guesses = [3, 4, 5, 6, 7, 8].map((turn) => verifyPassword('wrong', stored, turn));
    expect(await verifyPassword('the right password', stored, 1)).toBe(true);
    await Promise.all(guesses);
    const first = served.find((s) => s.turn === 1)!;
    // the guesses were waiting when it arrived (the first of them in the retries' one slot) and none left before it
    expect(first.waitingOnArrival).toBe(5);
    expect(first.servedBefore).toBe(0);
  });

  it('serves lower turns first and arrival order within a turn', async () => {
    served.length = 0;
    const order: string[] = [];
    const check = async (name: string, turn: number) => {
      await verifyPassword('wrong', stored, turn);
      order.push(name);
    };
    await Promise.all([check('a3', 3), check('b3', 3), check('c2', 2), check('d4', 4), check('e2', 2)]);
    // a3 started at once (nothing waited); then 2 before 3 before 4, arrival order among equals
    expect(order).toEqual(['a3', 'c2', 'e2', 'b3', 'd4']);
    expect(served.map((s) => s.turn)).toEqual([3, 2, 2, 3, 4]);
  });

  it('starts no retry while a first attempt is hashing', async () => {
    // stored hashes of other costs (a check reads N, r and p from the stored hash): guesses take about a
    // millisecond, the first attempt (p = 2) twice the usual
    const stored = (N: number, p: number) => {
      const salt = randomBytes(16);
      const key = scryptSync('pw', salt, 32, { N, r: 8, p, maxmem: 64 * 1024 * 1024 });
      return `scrypt$${N}$8$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
    };
    const cheap = stored(1024, 1);
    const costly = stored(2 ** 15, 2);
    served.length = 0;
    const guesses = [3, 4, 5, 6, 7, 8].map((turn) => verifyPassword('wrong', cheap, turn));
    const first = verifyPassword('pw', costly, 1).then((ok) => ({ ok, servedMeanwhile: served.length }));
    await Promise.all(guesses);
    const { ok, servedMeanwhile } = await first;
    expect(ok).toBe(true);
    // served before the first attempt's hash ended: the guess already running, the first attempt, and at
    // most the guess its end let start (without the pause, every cheap guess ran beside the costly hash)
    expect(served.slice(0, 2).map((s) => s.turn)).toEqual([3, 1]);
    expect(servedMeanwhile).toBeLessThanOrEqual(3);
  });

  it('makes an unknown email wait behind the same checks as a known one of the same turn', async () => {
    // guesses of turns 2, 3, 5 and 6 arrive, then the probe: its turn (1 or 4) is its own in the batch
    const behind = async (probe: () => Promise<boolean>) => {
      served.length = 0;
      await Promise.all([...[2, 3, 5, 6].map((turn) => verifyPassword('wrong', stored, turn)), probe()]);
      return { order: served.map((s) => s.turn), probe: served.find((s) => s.turn === 1 || s.turn === 4)! };
    };
    for (const turn of [1, 4]) {
      const known = await behind(() => verifyPassword('wrong', stored, turn));
      const unknown = await behind(() => imitatePasswordCheck(turn));
      expect(unknown.order, `turn ${turn}`).toEqual(known.order);
      expect(unknown.probe).toEqual({ ...known.probe, imitation: true, waitedMs: expect.any(Number) });
      expect(known.probe.imitation).toBe(false);
    }
  });
});
