import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { linkToken, Mailbox } from '../support/mailbox.js';
import {
  createOperator,
  inFreshTotpStep,
  inviteOperator,
  inviteThroughConsole,
  operatorLogin,
  totpCode,
} from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let server: TestServer;
let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const post = <T = unknown>(path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call<T>('POST', `${server.url}${path}`, { body, headers });
type Envelope = { success: false; error: { code: string; message: string } };

describe("operators' sign-in", () => {
  it('invites by link and e-mail, makes the operator enrol TOTP before the first session', async () => {
    await inFreshTotpStep();
    const invited = await inviteOperator(server, 'risk');
    expect(invited.invitationUrl).toMatch(/\/ops#\/convite\/[\w-]{40,}$/);
    const mail = await mailbox.waitFor(invited.email, /console de operação/);
    expect(mail.text).toContain(invited.invitationUrl);

    // no login before the invitation is accepted and the authenticator proved
    const early = await post<Envelope>('/api/ops/auth/login', {
      email: invited.email,
      password: 'x'.repeat(12),
    });
    expect(early.status).toBe(401);
    expect(early.body.error.code).toBe('INVALID_CREDENTIALS');

    const password = 'uma-senha-de-operador';
    const accepted = await post<{ totpSecret: string; otpauthUrl: string }>(
      '/api/ops/auth/accept-invitation',
      {
        token: invited.token,
        password,
      },
    );
    expect(accepted.status).toBe(200);
    expect(accepted.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    // the link sets the password once
    const again = await post<Envelope>('/api/ops/auth/accept-invitation', { token: invited.token, password });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_TOKEN');
    // enrolled but not yet confirmed: still no session
    const unconfirmed = await post<Envelope>('/api/ops/auth/login', {
      email: invited.email,
      password,
      totpCode: totpCode(accepted.body.totpSecret),
    });
    expect(unconfirmed.status).toBe(401);

    const wrongCode = await post<Envelope>('/api/ops/auth/totp/enable', {
      token: invited.token,
      code: '000000',
    });
    expect(wrongCode.status).toBe(400);
    const enabled = await post('/api/ops/auth/totp/enable', {
      token: invited.token,
      code: totpCode(accepted.body.totpSecret, -1),
    });
    expect(enabled.status).toBe(204);

    // the password first: a wrong one is INVALID_CREDENTIALS whatever the code
    const wrongPassword = await post<Envelope>('/api/ops/auth/login', {
      email: invited.email,
      password: 'not-the-password',
      totpCode: totpCode(accepted.body.totpSecret),
    });
    expect(wrongPassword.body.error.code).toBe('INVALID_CREDENTIALS');
    const noCode = await post<Envelope>('/api/ops/auth/login', { email: invited.email, password });
    expect(noCode.status).toBe(401);
    expect(noCode.body.error.code).toBe('TOTP_REQUIRED');
    const badCode = await post<Envelope>('/api/ops/auth/login', {
      email: invited.email,
      password,
      totpCode: '123',
    });
    expect(badCode.body.error.code).toBe('INVALID_CREDENTIALS');

    const session = await operatorLogin(
      server,
      invited.email,
      password,
      totpCode(accepted.body.totpSecret, 0),
    );
    // one cookie for the console's page and one for its routes, neither for the merchant panel's
    const paths = session.setCookies.map((c) => /Path=([^;]+)/i.exec(c)?.[1]).sort();
    expect(paths).toEqual(['/api/ops', '/ops']);
    for (const c of session.setCookies) expect(c).toMatch(/HttpOnly/i);
    // the console's one address: typed with a trailing slash, sent there (not a 404)
    const slash = await call('GET', `${server.url}/ops/`);
    expect(slash.status).toBe(301);
    expect(slash.headers.location).toBe('/ops');
    const me = await call<{ operator: { email: string; role: string } }>(
      'GET',
      `${server.url}/api/ops/auth/me`,
      {
        headers: { cookie: session.cookie },
      },
    );
    expect(me.status).toBe(200);
    expect(me.body.operator).toMatchObject({ email: invited.email, role: 'risk' });
  });

  it('an invitation made in the console is e-mailed only; a resend issues a fresh link and voids the earlier one', async () => {
    const admin = await createOperator(server, 'admin');
    const invited = await inviteThroughConsole(server, admin, mailbox, 'support');
    // the answer says it was sent, and carries no link nor token
    expect(invited.answer.body).toEqual({
      operator: expect.objectContaining({ email: invited.email, role: 'support', status: 'invited' }),
      invitationSent: true,
    });
    expect(invited.answer.text).not.toContain(invited.token);
    expect(invited.answer.text).not.toContain('convite');

    // only an admin resends
    const support = await createOperator(server, 'support');
    const asSupport = await post<Envelope>(
      `/api/ops/operators/${invited.id}/resend-invitation`,
      {},
      support.ops,
    );
    expect(asSupport.status).toBe(403);

    const resent = await post<{ operator: { status: string }; invitationSent: true }>(
      `/api/ops/operators/${invited.id}/resend-invitation`,
      {},
      admin.ops,
    );
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ operator: { status: 'invited' }, invitationSent: true });
    const mails = await waitUntil(
      () => (mailbox.to(invited.email).length >= 2 ? mailbox.to(invited.email) : undefined),
      30000,
      () => `a second invitation to ${invited.email}`,
    );
    const fresh = linkToken(mails[1]!, 'convite');
    expect(fresh).not.toBe(invited.token);
    expect(resent.text).not.toContain(fresh);

    // the earlier link no longer works; the fresh one does
    const old = await post<Envelope>('/api/ops/auth/accept-invitation', {
      token: invited.token,
      password: 'uma-senha-de-operador',
    });
    expect(old.status).toBe(400);
    expect(old.body.error.code).toBe('INVALID_TOKEN');
    const accepted = await post('/api/ops/auth/accept-invitation', {
      token: fresh,
      password: 'uma-senha-de-operador',
    });
    expect(accepted.status).toBe(200);

    // password set, authenticator not confirmed: a resend starts over (the half-used link stops working)
    const again = await post(`/api/ops/operators/${invited.id}/resend-invitation`, {}, admin.ops);
    expect(again.status).toBe(200);
    const enrol = await post<Envelope>('/api/ops/auth/totp/enable', { token: fresh, code: '000000' });
    expect(enrol.status).toBe(400);
    expect(enrol.body.error.code).toBe('INVALID_TOKEN');

    // an operator who has enrolled has no invitation to resend; one who does not exist is not found
    const enrolled = await post<Envelope>(
      `/api/ops/operators/${support.id}/resend-invitation`,
      {},
      admin.ops,
    );
    expect(enrolled.status).toBe(409);
    expect(enrolled.body.error.code).toBe('CONFLICT');
    expect((await post(`/api/ops/operators/999999999/resend-invitation`, {}, admin.ops)).status).toBe(404);

    const audit = await call<{ data: { action: string; target: string; operatorEmail: string }[] }>(
      'GET',
      `${server.url}/api/ops/audit`,
      { headers: admin.ops },
    );
    const resends = audit.body.data.filter(
      (e) => e.action === 'operator.invitation_resent' && e.target === `operator:${invited.id}`,
    );
    expect(resends).toHaveLength(2);
    expect(resends[0]!.operatorEmail).toBe(admin.email);
  });

  it("keeps the two kinds of session apart: neither opens the other's routes", async () => {
    const merchant = await createMerchant(server);
    const operator = await createOperator(server, 'admin');
    const asMerchant = await call<Envelope>('GET', `${server.url}/api/ops/operators`, {
      headers: merchant.panel,
    });
    expect(asMerchant.status).toBe(401);
    expect(asMerchant.body.error.code).toBe('UNAUTHORIZED');
    const asOperator = await call<Envelope>('GET', `${server.url}/api/balance`, {
      headers: { cookie: operator.cookie.replace('gw_ops=', 'gw_session=') },
    });
    expect(asOperator.status).toBe(401);
    const panelWithOpsCookie = await call('GET', `${server.url}/api/auth/me`, {
      headers: { cookie: operator.cookie },
    });
    expect(panelWithOpsCookie.status).toBe(401);
    const list = await call<{ data: { email: string }[] }>('GET', `${server.url}/api/ops/operators`, {
      headers: operator.ops,
    });
    expect(list.status).toBe(200);
    expect(list.body.data.map((o) => o.email)).toContain(operator.email);
  });

  it('refuses a change without the CSRF token and ends the session on logout', async () => {
    const operator = await createOperator(server, 'admin');
    const noCsrf = await call<Envelope>('POST', `${server.url}/api/ops/operators`, {
      headers: { cookie: operator.cookie },
      body: { email: 'x@gateway.example', role: 'support' },
    });
    expect(noCsrf.status).toBe(403);
    const out = await call('POST', `${server.url}/api/ops/auth/logout`, { headers: operator.ops });
    expect(out.status).toBe(204);
    const after = await call('GET', `${server.url}/api/ops/auth/me`, { headers: operator.ops });
    expect(after.status).toBe(401);
  });

  it('accepts the code that enrolled the authenticator once more, for the first login only, for some minutes', async () => {
    await inFreshTotpStep();
    const invited = await inviteOperator(server, 'support');
    const password = 'uma-senha-de-operador';
    const accepted = await post<{ totpSecret: string }>('/api/ops/auth/accept-invitation', {
      token: invited.token,
      password,
    });
    const code = totpCode(accepted.body.totpSecret, 0);
    expect((await post('/api/ops/auth/totp/enable', { token: invited.token, code })).status).toBe(204);

    // the console goes from enrolment to the login form, where the app still shows the same code:
    // two logins with it at once, as a double click would send, open one session
    const logins = await Promise.all(
      [1, 2].map(() =>
        post<Envelope>('/api/ops/auth/login', { email: invited.email, password, totpCode: code }),
      ),
    );
    expect(logins.map((r) => r.status).sort()).toEqual([200, 401]);
    expect(logins.find((r) => r.status === 401)!.body.error.code).toBe('INVALID_CREDENTIALS');

    // once spent, it is a replay like any other, the first login being over
    const again = await post<Envelope>('/api/ops/auth/login', {
      email: invited.email,
      password,
      totpCode: code,
    });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('INVALID_CREDENTIALS');
    // the next code opens a session as always
    await operatorLogin(server, invited.email, password, totpCode(accepted.body.totpSecret, 1));

    // a first login some minutes after the enrolment (the console promises it) still takes the enrolment's code,
    // past the usual window, and no other old code
    await inFreshTotpStep();
    const later = await inviteOperator(server, 'support');
    const secret = (
      await post<{ totpSecret: string }>('/api/ops/auth/accept-invitation', { token: later.token, password })
    ).body.totpSecret;
    expect(
      (await post('/api/ops/auth/totp/enable', { token: later.token, code: totpCode(secret) })).status,
    ).toBe(204);
    // as if enrolled three minutes ago
    await server.runtime.platform.db.query(
      'UPDATE operators SET totp_last_step = totp_last_step - 6 WHERE email = $1',
      [later.email],
    );
    const login = (code: string) =>
      post<Envelope>('/api/ops/auth/login', { email: later.email, password, totpCode: code });
    expect((await login(totpCode(secret, -7))).status).toBe(401);
    expect((await login(totpCode(secret, -6))).status).toBe(200);
    expect((await login(totpCode(secret, -6))).status).toBe(401);
  });

  it('an operator who has logged in before gets no second pass for an already used code', async () => {
    const operator = await createOperator(server, 'support'); // enrolled with step -1, logged in with step 0
    const replay = await post<Envelope>('/api/ops/auth/login', {
      email: operator.email,
      password: operator.password,
      totpCode: totpCode(operator.totpSecret, 0),
    });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('INVALID_CREDENTIALS');
  });
});
