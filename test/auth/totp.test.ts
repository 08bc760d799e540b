import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

/** The code of the 30 s step `offset` steps from now (the gateway accepts one step either side). */
function code(secret: string, offset = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + offset * 30_000 });
}

/** Codes of steps -1, 0 and +1 are all valid for a while: start each test well inside a step. */
beforeEach(async () => {
  const intoStep = (Date.now() / 1000) % 30;
  if (intoStep > 20) await new Promise((r) => setTimeout(r, (31 - intoStep) * 1000));
});

const post = (m: TestMerchant, path: string, body?: unknown) =>
  call('POST', `${server.url}${path}`, { headers: m.panel, body });

async function enableTotp(m: TestMerchant): Promise<string> {
  const setup = await call<{ secret: string; otpauthUrl: string }>(
    'POST',
    `${server.url}/api/auth/totp/setup`,
    {
      headers: m.panel,
    },
  );
  expect(setup.status).toBe(200);
  expect(setup.headers['cache-control']).toBe('no-store');
  const wrong = await post(m, '/api/auth/totp/enable', {
    code: code(setup.body.secret) === '000000' ? '111111' : '000000',
  });
  expect(wrong.status).toBe(400);
  expect((await post(m, '/api/auth/totp/enable', { code: code(setup.body.secret, -1) })).status).toBe(204);
  return setup.body.secret;
}

const login = (m: TestMerchant, totpCode?: string) =>
  call<{ user: { totpEnabled: boolean } }>('POST', `${server.url}/api/auth/login`, {
    body: { email: m.email, password: m.password, ...(totpCode === undefined ? {} : { totpCode }) },
  });

describe('two-factor login', () => {
  it('sets up an RFC 6238 secret, stored only encrypted, and needs a code to turn on', async () => {
    const m = await createMerchant(server);
    const setup = await call<{ secret: string; otpauthUrl: string }>(
      'POST',
      `${server.url}/api/auth/totp/setup`,
      {
        headers: m.panel,
      },
    );
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(setup.body.otpauthUrl);
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(url.searchParams.get('secret')).toBe(setup.body.secret);
    expect(url.searchParams.get('algorithm')).toBe('SHA1');
    expect(url.searchParams.get('digits')).toBe('6');
    expect(url.searchParams.get('period')).toBe('30');
    const dump = JSON.stringify(
      await server.runtime.platform.db.query('SELECT * FROM accounts WHERE id = $1', [m.accountId]),
    );
    expect(dump).not.toContain(setup.body.secret);
    // not on until a code proves the app has it
    expect((await login(m)).status).toBe(200);
  });

  it('asks for the code (401 TOTP_REQUIRED), accepts it once, and refuses a replay as a failed login', async () => {
    const m = await createMerchant(server);
    const secret = await enableTotp(m);
    const missing = await login(m);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      success: false,
      error: { code: 'TOTP_REQUIRED', message: expect.any(String) },
    });

    const now = code(secret);
    const ok = await login(m, now);
    expect(ok.status).toBe(200);
    expect(ok.body.user.totpEnabled).toBe(true);
    const replay = await login(m, now);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: expect.any(String) },
    });
    expect((await login(m, '12345')).status).toBe(401);
    // a wrong password is refused before the code is looked at
    const wrongPassword = await call('POST', `${server.url}/api/auth/login`, {
      body: { email: m.email, password: 'nope', totpCode: code(secret, 1) },
    });
    expect(wrongPassword.status).toBe(401);
    const failures = await server.runtime.platform.db.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE account_id = $1 AND action LIKE 'login.%' ORDER BY id`,
      [m.accountId],
    );
    expect(failures.map((f) => f.action)).toEqual([
      'login.succeeded', // createMerchant's login
      'login.succeeded',
      'login.failed',
      'login.failed',
      'login.failed',
    ]);
  });

  it('the right password without its code is not a failed login: asking again and again never locks', async () => {
    const m = await createMerchant(server);
    const secret = await enableTotp(m);
    for (let i = 0; i < 8; i++) {
      const res = await login(m);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 'TOTP_REQUIRED' } });
    }
    expect((await login(m, code(secret))).status).toBe(200);
  });

  it('a wrong code still counts: 5 of them lock the login, asking without a code in between resets nothing', async () => {
    const m = await createMerchant(server);
    const secret = await enableTotp(m);
    const right = code(secret);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) {
      expect((await login(m, wrong)).status).toBe(401);
      expect((await login(m)).status).toBe(401); // TOTP_REQUIRED: uncounted, but the failures stay
    }
    expect((await login(m, wrong)).status).toBe(401); // the fifth failure locks
    const locked = await login(m, right);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });

  it('a panel withdrawal takes the code instead of the password, each code once', async () => {
    const m = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    const secret = await enableTotp(m);
    const body = { amount: 150, pixKey: '52998224725' };
    const withPassword = await post(m, '/api/withdrawals', { ...body, password: m.password });
    expect(withPassword.status).toBe(401);
    expect(withPassword.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    const c = code(secret);
    expect((await post(m, '/api/withdrawals', { ...body, totpCode: c })).status).toBe(201);
    expect((await post(m, '/api/withdrawals', { ...body, totpCode: c })).status).toBe(401);
    const [row] = await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1',
      [m.accountId],
    );
    expect(row!.n).toBe(1);
  });

  it('turns off with a valid code only; then the password alone logs in again', async () => {
    const m = await createMerchant(server);
    const secret = await enableTotp(m);
    expect(
      (await post(m, '/api/auth/totp/disable', { code: '000000' === code(secret) ? '111111' : '000000' }))
        .status,
    ).toBe(400);
    // steps out of order are a state conflict (409), not bad input
    const again = await post(m, '/api/auth/totp/setup');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, error: { code: 'CONFLICT' } });
    expect((await post(m, '/api/auth/totp/enable', { code: code(secret) })).status).toBe(409);
    expect((await post(m, '/api/auth/totp/disable', { code: code(secret) })).status).toBe(204);
    expect((await post(m, '/api/auth/totp/disable', { code: code(secret) })).status).toBe(409);
    expect((await post(m, '/api/auth/totp/enable', { code: code(secret) })).status).toBe(409);
    const res = await login(m);
    expect(res.status).toBe(200);
    expect(res.body.user.totpEnabled).toBe(false);
    const actions = await server.runtime.platform.db.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE account_id = $1 AND action LIKE 'totp.%' ORDER BY id`,
      [m.accountId],
    );
    expect(actions.map((a) => a.action)).toEqual(['totp.enabled', 'totp.disabled']);
  });
});
