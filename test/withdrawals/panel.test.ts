import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePanelAuth } from '../support/auth-checks.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server);
  other = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 200_000);
});
afterAll(() => server?.close());

const withdraw = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call<{ uuid: string; id: number; status: string }>('POST', `${server.url}/api/withdrawals`, {
    headers: { ...m.panel, ...headers },
    body,
  });
const balance = async (who: TestMerchant = m) =>
  (
    await call<{ available: number; blocked: number; total: number }>('GET', `${server.url}/api/balance`, {
      headers: who.panel,
    })
  ).body;

describe('POST /api/withdrawals (panel)', () => {
  it('refuses a wrong password with 401 shape A and writes nothing', async () => {
    const res = await withdraw({ amount: 150, pixKey: '52998224725', password: 'wrong-password' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: 'Wrong password' } });
    // a code from a user without two-factor is not their confirmation, and is told so
    const code = await withdraw({ amount: 150, pixKey: '52998224725', totpCode: '123456' });
    expect(code.status).toBe(401);
    expect(code.body).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: 'Two-factor is off for this user: confirm with the password' },
    });
    expect(await balance()).toEqual({ available: 200_000, blocked: 0, total: 200_000, receivable: 0 });
  });

  it('accepts the right password sent in several withdrawals at once: none is taken for a failure', async () => {
    const busy = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, busy.accountId, 2_000_000);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call('POST', `${server.url}/api/withdrawals`, {
          headers: busy.panel,
          body: { amount: 150 + i, pixKey: '52998224725', password: busy.password },
        }),
      ),
    );
    expect(
      results.map((r) => r.status),
      JSON.stringify(results[0]!.body),
    ).toEqual(Array(12).fill(201));
  });

  it('locks confirmations after 5 wrong ones, even sent at once, and then refuses the right password too (429)', async () => {
    const victim = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, victim.accountId, 100_000);
    const attempt = (password: string) =>
      call<Record<string, unknown>>('POST', `${server.url}/api/withdrawals`, {
        headers: victim.panel,
        body: { amount: 150, pixKey: '52998224725', password },
      });
    const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(`guess-${i}`)));
    const statuses = guesses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const locked = await attempt(victim.password);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({
      message: expect.stringMatching(/Too many failed confirmations/),
      error: 'RATE_LIMITED',
    });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(locked.headers['ratelimit-remaining']).toBe('0');
    expect(await balance(victim)).toEqual({ available: 100_000, blocked: 0, total: 100_000, receivable: 0 });
    // the lock is the account's confirmations only: its owner still logs in, and other accounts confirm
    const login = await call('POST', `${server.url}/api/auth/login`, {
      body: { email: victim.email, password: victim.password },
    });
    expect(login.status).toBe(200);
  });

  it('makes the withdrawal with the API cashout’s rules, errors and idempotency', async () => {
    const first = await withdraw(
      { amount: 150, pixKey: '52998224725', password: m.password },
      { 'idempotency-key': 'p-1' },
    );
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.status).toBe('PENDING');
    const replay = await withdraw(
      { amount: 150, pixKey: '52998224725', password: m.password },
      { 'idempotency-key': 'p-1' },
    );
    expect(replay.body.uuid).toBe(first.body.uuid);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await balance()).toEqual({ available: 185_000, blocked: 15_000, total: 200_000, receivable: 0 });
    // the same refusals as the API route, in its shapes
    const small = await withdraw({ amount: 10, pixKey: '52998224725', password: m.password });
    expect(small.status).toBe(422);
    expect(small.body).toEqual({ message: expect.any(String), errorType: 'MINIMUM_VALUE' });
    const bad = await withdraw({ amount: 150, pixKey: '123', password: m.password });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: expect.any(String), error: 'VALIDATION_ERROR' });
    const broke = await withdraw({ amount: 5000, pixKey: '52998224725', password: m.password });
    expect(broke.status).toBe(422);
    expect(broke.body).toEqual({ message: expect.any(String), errorType: 'INSUFFICIENT_BALANCE' });
    const noCsrf = await call('POST', `${server.url}/api/withdrawals`, {
      headers: { cookie: m.cookie },
      body: { amount: 150, pixKey: '52998224725', password: m.password },
    });
    expect(noCsrf.status).toBe(403);
  });
});

describe('GET /api/withdrawals', () => {
  it('lists, pages and filters the account’s withdrawals only, and exports them', async () => {
    for (let i = 0; i < 4; i++) {
      expect((await withdraw({ amount: 100 + i, pixKey: '52998224725', password: m.password })).status).toBe(
        201,
      );
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: { id: number; status: string }[]; nextCursor: string | null } } = await call(
        'GET',
        `${server.url}/api/withdrawals?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: m.panel },
      );
      seen.push(...res.body.data.map((w) => w.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    const pending = await call<{ data: unknown[] }>('GET', `${server.url}/api/withdrawals?status=PENDING`, {
      headers: m.panel,
    });
    expect(pending.body.data).toHaveLength(5);
    expect(
      (await call<{ data: unknown[] }>('GET', `${server.url}/api/withdrawals`, { headers: other.panel })).body
        .data,
    ).toEqual([]);
    expect(
      (await call('GET', `${server.url}/api/withdrawals/${seen[0]}`, { headers: other.panel })).status,
    ).toBe(404);
    expect((await call('GET', `${server.url}/api/withdrawals/${seen[0]}`, { headers: m.panel })).status).toBe(
      200,
    );

    const csv = await request(`${server.url}/api/withdrawals/export.csv`, { headers: m.panel });
    const bytes = Buffer.from(await csv.body.arrayBuffer());
    const rows = parse(bytes.subarray(3).toString('utf8'), { delimiter: ';', columns: true }) as Record<
      string,
      string
    >[];
    expect(rows.map((r) => Number(r.id))).toEqual(seen);
    expect(rows.at(-1)!.valor).toBe('150,00');
  });
});

describe('GET /api/statement', () => {
  it('has every ledger line with the balances right after it, consistent across pages and with the balance', async () => {
    const now = await balance();
    const lines: {
      availableDelta: number;
      blockedDelta: number;
      availableAfter: number;
      blockedAfter: number;
    }[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: { data: typeof lines; nextCursor: string | null } } = await call(
        'GET',
        `${server.url}/api/statement?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: m.panel },
      );
      expect(res.status).toBe(200);
      lines.push(...res.body.data);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(lines).toHaveLength(6); // the funding and 5 withdrawals
    expect(lines[0]).toMatchObject({ availableAfter: now.available, blockedAfter: now.blocked });
    for (let i = 0; i + 1 < lines.length; i++) {
      expect(lines[i + 1]!.availableAfter).toBe(lines[i]!.availableAfter - lines[i]!.availableDelta);
      expect(lines[i + 1]!.blockedAfter).toBe(lines[i]!.blockedAfter - lines[i]!.blockedDelta);
    }
    // a period pages the same way: its bound travels in the cursor
    const inPeriod: unknown[] = [];
    let next: string | null = null;
    do {
      const res: { body: { data: unknown[]; nextCursor: string | null } } = await call(
        'GET',
        `${server.url}/api/statement?from=2000-01-01&limit=4${next ? `&cursor=${next}` : ''}`,
        { headers: m.panel },
      );
      inPeriod.push(...res.body.data);
      next = res.body.nextCursor;
    } while (next);
    expect(inPeriod).toEqual(lines);
    const oldest = lines.at(-1)!;
    expect(oldest.availableAfter - oldest.availableDelta).toBe(0);
    // a forged cursor is refused
    const forged = Buffer.from('999.1.0.AAAAAAAAAAAAAAAAAAAAAA').toString('base64url');
    expect(
      (await call('GET', `${server.url}/api/statement?cursor=${forged}`, { headers: m.panel })).status,
    ).toBe(400);
    // the CSV has the same lines
    const csv = await request(`${server.url}/api/statement/export.csv`, { headers: m.panel });
    const rows = parse(
      Buffer.from(await csv.body.arrayBuffer())
        .subarray(3)
        .toString('utf8'),
      {
        delimiter: ';',
        columns: true,
      },
    ) as Record<string, string>[];
    expect(rows).toHaveLength(6);
    expect(rows[0]!.saldo_disponivel).toBe(`${now.available / 100},00`);
  });
});

describe('GET /api/withdrawals/fee-preview', () => {
  it('answers the fees the withdrawal is then charged, and the creation’s refusals before it is sent', async () => {
    const f = await createMerchant(server);
    const db = server.runtime.platform.db;
    // R$ 1,50 fixed + 1.25 %
    await db.query(
      'UPDATE accounts SET cashout_fee_fixed = 150, cashout_fee_percent_e4 = 12500 WHERE id = $1',
      [f.accountId],
    );
    await fundMerchant(db, f.accountId, 100_000);
    const preview = (amount: string) =>
      call<Record<string, unknown>>(
        'GET',
        `${server.url}/api/withdrawals/fee-preview?amount=${encodeURIComponent(amount)}`,
        { headers: f.panel },
      );
    const res = await preview('250.10');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      amount: '250.10',
      fees: { fixed: '1.50', variable: '3.13', total: '4.63' },
      netAmount: '245.47',
      debited: '250.10',
    });
    const made = await call<Record<string, unknown>>('POST', `${server.url}/api/withdrawals`, {
      headers: f.panel,
      body: { amount: '250.10', pixKey: '52998224725', password: f.password },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      amount: res.body.amount,
      fees: res.body.fees,
      netAmount: res.body.netAmount,
    });
    expect((await balance(f)).available).toBe(100_000 - 25_010);

    expect((await preview('99.99')).body).toEqual({
      message: expect.any(String),
      errorType: 'MINIMUM_VALUE',
    });
    expect((await preview('100000.01')).status).toBe(422);
    await db.query('UPDATE accounts SET cashout_fee_fixed = 20000 WHERE id = $1', [f.accountId]);
    const whole = await preview('150.00'); // the fixed fee takes the whole amount
    expect(whole.status).toBe(422);
    expect(whole.body).toEqual({ message: expect.any(String), errorType: 'GENERAL_ERROR' });
    expect((await preview('1,5')).body).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR' },
    });
  });
});

describePanelAuth({ method: 'GET', path: '/api/withdrawals/fee-preview?amount=150.00' }, () => server);
describePanelAuth(
  { method: 'POST', path: '/api/withdrawals', body: { amount: 150, pixKey: '52998224725', password: 'x' } },
  () => server,
);
