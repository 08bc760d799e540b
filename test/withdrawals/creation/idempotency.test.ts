import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApiWithdrawals } from '../../../src/accounts/settings.js';
import { deleteExpiredKeys } from '../../../src/withdrawals/creation/idempotency.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let m: TestMerchant;
let n = 0;
const freshKey = () => `key-${Date.now()}-${n++}`;
const post = (body: unknown, key: string | undefined, merchant = m) =>
  call<Record<string, unknown>>('POST', `${server.url}/api/public/cashout`, {
    headers: { ...merchant.keys, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body,
  });
const count = async (accountId = m.accountId) =>
  (
    await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
      [accountId],
    )
  )[0]!.n;

beforeAll(async () => {
  server = await startServer();
  m = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 10_000_000);
});
afterAll(() => server?.close());

describe('Idempotency-Key on POST /api/public/cashout', () => {
  it('replays the first 201 (same status and body) without a second withdrawal', async () => {
    const key = freshKey();
    const before = await count();
    const first = await post({ amount: 150, pixKey: '52998224725' }, key);
    expect(first.status).toBe(201);
    const again = await post({ amount: '150.00', pixKey: '529.982.247-25' }, key); // same request, other spelling
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await count()).toBe(before + 1);
  });

  it('refuses the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED (shape C)', async () => {
    const key = freshKey();
    expect((await post({ amount: 150, pixKey: '52998224725' }, key)).status).toBe(201);
    const res = await post({ amount: 151, pixKey: '52998224725' }, key);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'This Idempotency-Key was already used with a different request body',
      errorType: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('scopes keys to the account', async () => {
    const key = freshKey();
    const other = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, other.accountId, 100_000);
    const a = await post({ amount: 150, pixKey: '52998224725' }, key);
    const b = await post({ amount: 150, pixKey: '52998224725' }, key, other);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.uuid).not.toBe(a.body.uuid);
  });

  it('replays a business refusal as it was first answered', async () => {
    const key = freshKey();
    const { db } = server.runtime.platform;
    await setApiWithdrawals(db, false);
    const first = await post({ amount: 150, pixKey: '52998224725' }, key);
    await setApiWithdrawals(db, true);
    const again = await post({ amount: 150, pixKey: '52998224725' }, key);
    expect(first.status).toBe(403);
    expect(again.status).toBe(403);
    expect(again.body).toEqual(first.body);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('does not consume the key on a 400', async () => {
    const key = freshKey();
    expect((await post({ amount: 100.123, pixKey: '52998224725' }, key)).status).toBe(400);
    expect((await post({ amount: 150, pixKey: '52998224725' }, key)).status).toBe(201);
  });

  it('refuses keys outside 1–255 visible ASCII with 400 shape D', async () => {
    for (const key of ['', 'a'.repeat(256), 'has space', 'tab\tkey']) {
      const res = await post({ amount: 150, pixKey: '52998224725' }, key);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
        error: 'VALIDATION_ERROR',
      });
    }
    expect((await post({ amount: 150, pixKey: '52998224725' }, 'k'.repeat(255))).status).toBe(201);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request holds the key', async () => {
    const key = freshKey();
    const { db } = server.runtime.platform;
    // Hold the key's lock the way an in-flight request does, then repeat.
    const release = await holdKeyLock(db, m.accountId, key);
    try {
      const res = await post({ amount: 150, pixKey: '52998224725' }, key);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        message: 'A request with this Idempotency-Key is still being processed',
        errorType: 'IDEMPOTENCY_KEY_IN_USE',
      });
      expect(res.headers['retry-after']).toBe('1');
    } finally {
      await release();
    }
    expect((await post({ amount: 150, pixKey: '52998224725' }, key)).status).toBe(201);
  });

  it('creates exactly one withdrawal under 20 concurrent repeats of one key', async () => {
    const key = freshKey();
    const before = await count();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post({ amount: 200, pixKey: '52998224725' }, key)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses).toContain(201);
    const uuids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.uuid));
    expect(uuids.size).toBe(1);
    expect(await count()).toBe(before + 1);
    const replay = await post({ amount: 200, pixKey: '52998224725' }, key);
    expect(replay.body.uuid).toBe([...uuids][0]);
  });

  it('forgets a key after 24 hours', async () => {
    const key = freshKey();
    const first = await post({ amount: 150, pixKey: '52998224725' }, key);
    await server.runtime.platform.db.query(
      `UPDATE cashout_idempotency SET expires_at = now() - interval '1 second' WHERE key = $1`,
      [key],
    );
    const second = await post({ amount: 150, pixKey: '52998224725' }, key);
    expect(second.status).toBe(201);
    expect(second.body.uuid).not.toBe(first.body.uuid);
    const { db } = server.runtime.platform;
    await db.query(`UPDATE cashout_idempotency SET expires_at = now() - interval '1 second' WHERE key = $1`, [
      key,
    ]);
    expect(await deleteExpiredKeys(db)).toBeGreaterThanOrEqual(1);
    expect(await db.query('SELECT 1 FROM cashout_idempotency WHERE key = $1', [key])).toEqual([]);
  });
});

async function holdKeyLock(
  db: import('../../../src/platform/db/db.js').Db,
  accountId: number,
  key: string,
): Promise<() => Promise<void>> {
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => {
    locked = r;
  });
  const done = db.tx(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2, 727274010))`, [
      accountId,
      key,
    ]);
    locked();
    await held;
  });
  await isLocked;
  return async () => {
    release();
    await done;
  };
}
