import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { startServer, type TestServer } from '../../support/server.js';

// Two gateway servers on one database, each with its own pool and its own cashout batcher (as two processes
// are): a finished Idempotency-Key replayed on both at once must get its stored answer everywhere.
let first: TestServer;
let second: TestServer;
let m: TestMerchant;

beforeAll(async () => {
  first = await startServer({ workers: false });
  second = await startServer({ databaseUrl: first.databaseUrl, workers: false });
  m = await createMerchant(first);
  await fundMerchant(first.runtime.platform.db, m.accountId, 10_000_000);
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

const post = (s: TestServer, key: string, amount = 150) =>
  call<Record<string, unknown>>('POST', `${s.url}/api/public/cashout`, {
    headers: { ...m.keys, 'idempotency-key': key },
    body: { amount, pixKey: '52998224725' },
  });

describe('replays of a finished Idempotency-Key on two processes', () => {
  it('answer the stored 201 to every one of 10 concurrent replays, 2 s after the first, in 5 rounds', async () => {
    for (let round = 0; round < 5; round++) {
      const key = `replay-${Date.now()}-${round}`;
      const original = await post(first, key);
      expect(original.status).toBe(201);
      await new Promise((r) => setTimeout(r, round === 0 ? 2000 : 200));
      const replays = await Promise.all(
        Array.from({ length: 10 }, (_, i) => post(i % 2 ? second : first, key)),
      );
      expect(replays.map((r) => r.status)).toEqual(Array(10).fill(201));
      for (const r of replays) {
        expect(r.text).toBe(original.text);
        expect(r.headers['idempotent-replayed']).toBe('true');
      }
    }
    const [{ n }] = await first.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
      [m.accountId],
    );
    expect(n).toBe(5);
  });

  it('answer a stored refusal (422 MINIMUM_VALUE) and a reused key (422) the same way on both', async () => {
    const key = `replay-refusal-${Date.now()}`;
    const original = await post(first, key, 50); // below the minimum: 422 MINIMUM_VALUE, stored
    expect(original.status).toBe(422);
    const replays = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(i % 2 ? second : first, key, 50)),
    );
    expect(replays.map((r) => r.status)).toEqual(Array(10).fill(422));
    for (const r of replays) expect(r.text).toBe(original.text);
    const reused = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post(i % 2 ? second : first, key, 151)),
    );
    expect(reused.map((r) => r.status)).toEqual(Array(6).fill(422));
    for (const r of reused) expect(r.body.errorType).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
