import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, login, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { linkToken, Mailbox } from '../../support/mailbox.js';
import { startServer, type TestServer } from '../../support/server.js';
import { addTeamUser } from '../../support/team.js';

let server: TestServer;
let mailbox: Mailbox;
let owner: TestMerchant;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({
    env: { SMTP_URL: mailbox.url, MAIL_FROM: 'Gateway <no-reply@gateway.test>' },
  });
  owner = await createMerchant(server, 'Loja Equipe');
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const audit = async (m: { panel: Record<string, string> }) =>
  (
    await call<{
      data: { action: string; actor: { type: string; id: number; label: string }; target: string }[];
    }>('GET', `${server.url}/api/audit-log?limit=100`, { headers: m.panel })
  ).body.data;

describe('invitations', () => {
  it('mails a one-time link; accepting it signs the user in with their role; the link works once', async () => {
    const email = 'finance-person@example.com';
    const res = await call<Record<string, unknown>>('POST', `${server.url}/api/users/invitations`, {
      headers: owner.panel,
      body: { email, name: 'Fin Person', role: 'finance' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email, name: 'Fin Person', role: 'finance', status: 'invited' });
    const hours = (Date.parse(String(res.body.expiresAt)) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);

    const mail = await mailbox.waitFor(email, /Convite para a equipe de Loja Equipe/);
    expect(mail.text).toContain('Financeiro');
    expect(mail.html).toContain('#/convite/');
    const token = linkToken(mail, 'convite');
    // only the hash is stored
    const stored = await server.runtime.platform.db.query<{ token_hash: string }>(
      'SELECT token_hash FROM user_tokens',
    );
    expect(stored.map((r) => r.token_hash)).not.toContain(token);
    // and the e-mail waiting in the outbox holds the link sealed, not readable
    const outbox = await server.runtime.platform.db.query<{ text_body: string; html_body: string }>(
      'SELECT text_body, html_body FROM mail_messages WHERE recipient = $1',
      [email],
    );
    expect(JSON.stringify(outbox)).not.toContain(token);

    const list = await call<{ data: { email: string; status: string }[] }>('GET', `${server.url}/api/users`, {
      headers: owner.panel,
    });
    expect(list.body.data.find((u) => u.email === email)).toMatchObject({
      status: 'invited',
      role: 'finance',
    });

    const short = await call('POST', `${server.url}/api/auth/accept-invitation`, {
      body: { token, password: 'short' },
    });
    expect(short.status).toBe(400);
    const accepted = await call<{ user: { role: string; email: string }; csrfToken: string }>(
      'POST',
      `${server.url}/api/auth/accept-invitation`,
      { body: { token, password: 'a-good-password' } },
    );
    expect(accepted.status).toBe(200);
    expect(accepted.body.user).toMatchObject({ email, role: 'finance' });
    expect(String(accepted.headers['set-cookie'])).toMatch(/gw_session=.*HttpOnly/);

    const again = await call<{ success: boolean; error: { code: string } }>(
      'POST',
      `${server.url}/api/auth/accept-invitation`,
      { body: { token, password: 'another-password' } },
    );
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ success: false, error: { code: 'INVALID_TOKEN' } });

    const session = await login(server, email, 'a-good-password');
    const me = await call<{ user: { role: string } }>('GET', `${server.url}/api/auth/me`, {
      headers: { cookie: session.cookie },
    });
    expect(me.body.user.role).toBe('finance');
    const actions = (await audit(owner)).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['user.invited', 'user.joined']));
    const joined = (await audit(owner)).find((e) => e.action === 'user.joined')!;
    expect(joined.actor).toMatchObject({ type: 'user', label: email });
  });

  it('an e-mail already a user of this account → 409 EMAIL_TAKEN; unknown tokens → 400 INVALID_TOKEN', async () => {
    const res = await call<{ error: { code: string } }>('POST', `${server.url}/api/users/invitations`, {
      headers: owner.panel,
      body: { email: owner.email, name: 'Someone', role: 'viewer' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('EMAIL_TAKEN');
    const unknown = await call<{ error: { code: string } }>(
      'POST',
      `${server.url}/api/auth/accept-invitation`,
      {
        body: { token: 'nope', password: 'a-good-password' },
      },
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('INVALID_TOKEN');
  });

  it('an expired invitation is refused and frees its e-mail for a new one', async () => {
    const email = 'late@example.com';
    await call('POST', `${server.url}/api/users/invitations`, {
      headers: owner.panel,
      body: { email, name: 'Late', role: 'viewer' },
    });
    const token = linkToken(await mailbox.waitFor(email, /Convite/), 'convite');
    await server.runtime.platform.db.query(
      "UPDATE user_tokens SET expires_at = now() - interval '1 second' WHERE purpose = 'invitation'",
    );
    const res = await call<{ error: { code: string } }>('POST', `${server.url}/api/auth/accept-invitation`, {
      body: { token, password: 'a-good-password' },
    });
    expect(res.body.error.code).toBe('INVALID_TOKEN');
    const again = await call('POST', `${server.url}/api/users/invitations`, {
      headers: owner.panel,
      body: { email, name: 'Late', role: 'developer' },
    });
    expect(again.status).toBe(201);
  });
});

describe('roles', () => {
  it('only an owner makes or changes an owner; the last owner can be neither demoted nor removed', async () => {
    const admin = await addTeamUser(server.url, owner, mailbox, 'admin');
    const viewer = await addTeamUser(server.url, owner, mailbox, 'viewer');
    const ownerId = (
      await call<{ user: { id: number } }>('GET', `${server.url}/api/auth/me`, { headers: owner.panel })
    ).body.user.id;

    const promote = await call<{ error: { code: string } }>('PUT', `${server.url}/api/users/${viewer.id}`, {
      headers: admin.panel,
      body: { role: 'owner' },
    });
    expect(promote.status).toBe(403);
    const demoteOwner = await call('PUT', `${server.url}/api/users/${ownerId}`, {
      headers: admin.panel,
      body: { role: 'viewer' },
    });
    expect(demoteOwner.status).toBe(403);
    const removeOwner = await call('DELETE', `${server.url}/api/users/${ownerId}`, { headers: admin.panel });
    expect(removeOwner.status).toBe(403);
    const adminChanges = await call<{ role: string }>('PUT', `${server.url}/api/users/${viewer.id}`, {
      headers: admin.panel,
      body: { role: 'developer' },
    });
    expect(adminChanges.status).toBe(200);
    expect(adminChanges.body.role).toBe('developer');

    const last = await call<{ error: { code: string } }>('PUT', `${server.url}/api/users/${ownerId}`, {
      headers: owner.panel,
      body: { role: 'admin' },
    });
    expect(last.status).toBe(409);
    expect(last.body.error.code).toBe('LAST_OWNER');
    const lastRemoved = await call<{ error: { code: string } }>(
      'DELETE',
      `${server.url}/api/users/${ownerId}`,
      {
        headers: owner.panel,
      },
    );
    expect(lastRemoved.body.error.code).toBe('LAST_OWNER');

    // with a second owner, the first can step down
    expect(
      (
        await call('PUT', `${server.url}/api/users/${admin.id}`, {
          headers: owner.panel,
          body: { role: 'owner' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('PUT', `${server.url}/api/users/${ownerId}`, {
          headers: owner.panel,
          body: { role: 'admin' },
        })
      ).status,
    ).toBe(200);
    const me = await call<{ user: { role: string } }>('GET', `${server.url}/api/auth/me`, {
      headers: owner.panel,
    });
    expect(me.body.user.role).toBe('admin');
    expect(
      (
        await call('PUT', `${server.url}/api/users/${ownerId}`, {
          headers: admin.panel,
          body: { role: 'owner' },
        })
      ).status,
    ).toBe(200);

    const actions = (await audit(owner)).map((e) => e.action);
    expect(actions).toContain('user.role_changed');
  });

  it('a removed user is signed out at once', async () => {
    const dev = await addTeamUser(server.url, owner, mailbox, 'developer');
    expect((await call('GET', `${server.url}/api/credentials`, { headers: dev.panel })).status).toBe(200);
    expect((await call('DELETE', `${server.url}/api/users/${dev.id}`, { headers: owner.panel })).status).toBe(
      204,
    );
    expect((await call('GET', `${server.url}/api/auth/me`, { headers: dev.panel })).status).toBe(401);
    const relogin = await call('POST', `${server.url}/api/auth/login`, {
      body: { email: dev.email, password: dev.password },
    });
    expect(relogin.status).toBe(401);
    expect((await audit(owner)).map((e) => e.action)).toContain('user.removed');
  });

  it('a role change applies to sessions already open', async () => {
    const fin = await addTeamUser(server.url, owner, mailbox, 'finance');
    expect((await call('GET', `${server.url}/api/audit-log`, { headers: fin.panel })).status).toBe(200);
    await call('PUT', `${server.url}/api/users/${fin.id}`, {
      headers: owner.panel,
      body: { role: 'viewer' },
    });
    const refused = await call<{ success: boolean; error: { code: string } }>(
      'GET',
      `${server.url}/api/audit-log`,
      {
        headers: fin.panel,
      },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
  });
});

describe('password reset', () => {
  it('202 for any address; the link sets a new password once and ends every session of that user', async () => {
    const unknown = await call('POST', `${server.url}/api/auth/password-reset`, {
      body: { email: 'nobody@example.com' },
    });
    expect(unknown.status).toBe(202);
    const user = await addTeamUser(server.url, owner, mailbox, 'viewer');
    const second = await login(server, user.email, user.password);
    const asked = await call('POST', `${server.url}/api/auth/password-reset`, {
      body: { email: user.email.toUpperCase() },
    });
    expect(asked.status).toBe(202);
    const mail = await mailbox.waitFor(user.email, /Redefinição de senha/);
    const token = linkToken(mail, 'nova-senha');
    // asked again at once: the first link still works, no second mail
    await call('POST', `${server.url}/api/auth/password-reset`, { body: { email: user.email } });

    const done = await call('POST', `${server.url}/api/auth/password-reset/confirm`, {
      body: { token, password: 'brand-new-password' },
    });
    expect(done.status).toBe(204);
    expect((await call('GET', `${server.url}/api/auth/me`, { headers: user.panel })).status).toBe(401);
    expect(
      (await call('GET', `${server.url}/api/auth/me`, { headers: { cookie: second.cookie } })).status,
    ).toBe(401);
    await expect(login(server, user.email, user.password)).rejects.toThrow(/401/);
    await login(server, user.email, 'brand-new-password');
    const reuse = await call<{ error: { code: string } }>(
      'POST',
      `${server.url}/api/auth/password-reset/confirm`,
      {
        body: { token, password: 'yet-another-password' },
      },
    );
    expect(reuse.status).toBe(400);
    expect(reuse.body.error.code).toBe('INVALID_TOKEN');
    expect(mailbox.to(user.email).filter((m) => /Redefinição/.test(m.subject))).toHaveLength(1);
    const reset = (await audit(owner)).find((e) => e.action === 'password.reset')!;
    expect(reset.actor).toMatchObject({ type: 'user', id: user.id, label: user.email });
  });

  it('an expired link → 400 INVALID_TOKEN', async () => {
    const user = await addTeamUser(server.url, owner, mailbox, 'viewer');
    await call('POST', `${server.url}/api/auth/password-reset`, { body: { email: user.email } });
    const token = linkToken(await mailbox.waitFor(user.email, /Redefinição/), 'nova-senha');
    await server.runtime.platform.db.query(
      "UPDATE user_tokens SET expires_at = now() - interval '1 second' WHERE purpose = 'password_reset'",
    );
    const res = await call<{ error: { code: string } }>(
      'POST',
      `${server.url}/api/auth/password-reset/confirm`,
      {
        body: { token, password: 'brand-new-password' },
      },
    );
    expect(res.body.error.code).toBe('INVALID_TOKEN');
  });
});
