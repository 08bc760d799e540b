import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGateway } from '../support/cli.js';
import { call } from '../support/http.js';
import { linkToken, Mailbox } from '../support/mailbox.js';
import {
  createOperator,
  inFreshTotpStep,
  inviteThroughConsole,
  operatorLogin,
  type TestOperator,
  totpCode,
} from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

/**
 * Someone who leaves the payment company or changes job: an admin disables their access or changes their role,
 * in the console's API and with `gateway operators disable` at the server. Each file gets its own database, so
 * which admins are active is this file's alone.
 */
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

type Envelope = { success: false; error: { code: string; message: string } };
type Changed = { operator: { id: number; email: string; role: string; status: string } };
const send = <T = unknown>(method: string, p: string, op: TestOperator, body: unknown = {}) =>
  call<T>(method, `${server.url}${p}`, { headers: op.ops, body });
const me = (op: TestOperator) =>
  call<{ operator: { role: string } }>('GET', `${server.url}/api/ops/auth/me`, { headers: op.ops });
const auditOf = async (admin: TestOperator, target: number) =>
  (
    await call<{
      data: {
        action: string;
        at: string;
        target: string;
        operatorEmail: string;
        before: unknown;
        after: unknown;
      }[];
    }>('GET', `${server.url}/api/ops/audit?limit=100`, { headers: admin.ops })
  ).body.data.filter((e) => e.target === `operator:${target}`);

describe("an operator's access, changed by an admin", () => {
  it('disabling ends the sessions at once and refuses the password and code; only a new invitation brings them back', async () => {
    const admin = await createOperator(server, 'admin');
    const leaver = await createOperator(server, 'risk');
    expect((await me(leaver)).status).toBe(200);

    const disabled = await send<Changed>('POST', `/api/ops/operators/${leaver.id}/disable`, admin);
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.operator).toMatchObject({ id: leaver.id, status: 'disabled', role: 'risk' });
    // the session they had open answers 401 on its next request, a read as a change
    expect((await me(leaver)).status).toBe(401);
    expect((await send('POST', '/api/ops/accounts/1/suspend', leaver, { reason: 'x' })).status).toBe(401);
    // their password and a fresh code no longer open a session (the same answer as a wrong password)
    await inFreshTotpStep();
    const login = await call<Envelope>('POST', `${server.url}/api/ops/auth/login`, {
      body: { email: leaver.email, password: leaver.password, totpCode: totpCode(leaver.totpSecret, 1) },
    });
    expect(login.status).toBe(401);
    expect(login.body.error.code).toBe('INVALID_CREDENTIALS');
    // asked again: the same answer, nothing more recorded
    const again = await send<Changed>('POST', `/api/ops/operators/${leaver.id}/disable`, admin);
    expect(again.status).toBe(200);
    expect(again.body.operator.status).toBe('disabled');
    const list = await call<{ data: { id: number; status: string }[] }>(
      'GET',
      `${server.url}/api/ops/operators`,
      {
        headers: admin.ops,
      },
    );
    expect(list.body.data.find((o) => o.id === leaver.id)?.status).toBe('disabled');
    const entries = await auditOf(admin, leaver.id);
    expect(entries.filter((e) => e.action === 'operator.disabled')).toEqual([
      expect.objectContaining({
        operatorEmail: admin.email,
        before: { email: leaver.email, role: 'risk', status: 'active' },
        after: { status: 'disabled' },
      }),
    ]);
    // a role is not given to someone disabled
    const role = await send<Envelope>('PATCH', `/api/ops/operators/${leaver.id}`, admin, { role: 'admin' });
    expect(role.status).toBe(409);
    expect(role.body.error.message).toMatch(/is disabled: invite them again/);

    // someone tries the old password until the login locks
    let locked = 0;
    for (let i = 0; i < 7 && locked === 0; i++) {
      const tried = await call('POST', `${server.url}/api/ops/auth/login`, {
        body: { email: leaver.email, password: 'not-it', totpCode: '000000' },
      });
      if (tried.status === 429) locked++;
    }
    expect(locked).toBe(1);

    // invited again: a fresh enrolment (new password, new authenticator), then a first login (the new password
    // ends the lock)
    const mailsBefore = mailbox.to(leaver.email).length;
    const resent = await send<{ operator: { status: string } }>(
      'POST',
      `/api/ops/operators/${leaver.id}/resend-invitation`,
      admin,
    );
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.operator.status).toBe('invited');
    const mail = await waitUntil(
      () => mailbox.to(leaver.email)[mailsBefore],
      30000,
      () => `the new invitation to ${leaver.email}`,
    );
    const token = linkToken(mail, 'convite');
    const password = 'uma-senha-nova-de-operador';
    const accepted = await call<{ totpSecret: string }>(
      'POST',
      `${server.url}/api/ops/auth/accept-invitation`,
      {
        body: { token, password },
      },
    );
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.totpSecret).not.toBe(leaver.totpSecret);
    await inFreshTotpStep();
    const enrolled = await call('POST', `${server.url}/api/ops/auth/totp/enable`, {
      body: { token, code: totpCode(accepted.body.totpSecret, -1) },
    });
    expect(enrolled.status).toBe(204);
    const old = await call('POST', `${server.url}/api/ops/auth/login`, {
      body: { email: leaver.email, password: leaver.password, totpCode: totpCode(accepted.body.totpSecret) },
    });
    expect(old.status).toBe(401);
    const back = await operatorLogin(server, leaver.email, password, totpCode(accepted.body.totpSecret));
    expect(back.csrf).toBeTruthy();
  });

  it('the invitations a disabled admin sent stop working, whoever was enrolling with them; another admin sends them again', async () => {
    const leaving = await createOperator(server, 'admin');
    const staying = await createOperator(server, 'admin');
    const waiting = await inviteThroughConsole(server, leaving, mailbox, 'admin');
    const halfway = await inviteThroughConsole(server, leaving, mailbox, 'support');
    const accepted = await call<{ totpSecret: string }>(
      'POST',
      `${server.url}/api/ops/auth/accept-invitation`,
      {
        body: { token: halfway.token, password: 'senha-de-quem-comecou' },
      },
    );
    expect(accepted.status, accepted.text).toBe(200);
    // an invitation the staying admin sent is not the leaving one's
    const theirs = await inviteThroughConsole(server, staying, mailbox, 'risk');

    const disabled = await send<Changed>('POST', `/api/ops/operators/${leaving.id}/disable`, staying);
    expect(disabled.status, disabled.text).toBe(200);
    const unused = await call<Envelope>('POST', `${server.url}/api/ops/auth/accept-invitation`, {
      body: { token: waiting.token, password: 'senha-de-quem-esperou' },
    });
    expect(unused.status).toBe(400);
    expect(unused.body.error.code).toBe('INVALID_TOKEN');
    const unfinished = await call<Envelope>('POST', `${server.url}/api/ops/auth/totp/enable`, {
      body: { token: halfway.token, code: totpCode(accepted.body.totpSecret) },
    });
    expect(unfinished.status).toBe(400);
    expect(unfinished.body.error.code).toBe('INVALID_TOKEN');
    const kept = await call('POST', `${server.url}/api/ops/auth/accept-invitation`, {
      body: { token: theirs.token, password: 'senha-de-quem-foi-convidado' },
    });
    expect(kept.status, kept.text).toBe(200);
    // the audit says how many it ended
    expect((await auditOf(staying, leaving.id)).find((e) => e.action === 'operator.disabled')?.after).toEqual(
      {
        status: 'disabled',
        invitationsSentEnded: 2,
      },
    );

    // sent again by the admin who stays: the new link enrols
    const mailsBefore = mailbox.to(waiting.email).length;
    const resent = await send('POST', `/api/ops/operators/${waiting.id}/resend-invitation`, staying);
    expect(resent.status, resent.text).toBe(200);
    const mail = await waitUntil(
      () => mailbox.to(waiting.email)[mailsBefore],
      30000,
      () => 'the new link',
    );
    const again = await call('POST', `${server.url}/api/ops/auth/accept-invitation`, {
      body: { token: linkToken(mail, 'convite'), password: 'senha-de-quem-esperou' },
    });
    expect(again.status, again.text).toBe(200);
  });

  it('a role changed applies from the next request; nobody changes their own access, and only an admin changes anyone', async () => {
    const admin = await createOperator(server, 'admin');
    const support = await createOperator(server, 'support');
    expect((await send('GET', '/api/ops/operators', support)).status).toBe(403);

    const promoted = await send<Changed>('PATCH', `/api/ops/operators/${support.id}`, admin, {
      role: 'finance',
    });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body.operator.role).toBe('finance');
    expect((await me(support)).body.operator.role).toBe('finance');
    // a finance operator now reads fee plans; still not the operators
    expect((await send('GET', '/api/ops/fee-plans', support)).status).toBe(200);
    expect((await send('POST', `/api/ops/operators/${admin.id}/disable`, support)).status).toBe(403);
    expect((await send('PATCH', `/api/ops/operators/${admin.id}`, support, { role: 'support' })).status).toBe(
      403,
    );

    // their own access: another admin's job
    const self = await send<Envelope>('POST', `/api/ops/operators/${admin.id}/disable`, admin);
    expect(self.status).toBe(409);
    expect(self.body.error.message).toMatch(/^You cannot disable your own access/);
    const ownRole = await send<Envelope>('PATCH', `/api/ops/operators/${admin.id}`, admin, {
      role: 'support',
    });
    expect(ownRole.status).toBe(409);
    expect(ownRole.body.error.message).toMatch(/^You cannot change your own role/);
    // bad input
    expect((await send('PATCH', `/api/ops/operators/${support.id}`, admin, { role: 'owner' })).status).toBe(
      400,
    );
    expect((await send('PATCH', `/api/ops/operators/${support.id}`, admin, {})).status).toBe(400);
    expect((await send('POST', '/api/ops/operators/999999999/disable', admin)).status).toBe(404);
    expect((await send('PATCH', '/api/ops/operators/abc', admin, { role: 'risk' })).status).toBe(400);

    const entries = await auditOf(admin, support.id);
    expect(entries.filter((e) => e.action === 'operator.role_changed')).toEqual([
      expect.objectContaining({
        operatorEmail: admin.email,
        before: { email: support.email, role: 'support' },
        after: { role: 'finance' },
      }),
    ]);
  });

  it('two admins disabling each other at once: one of them keeps access, never neither', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await createOperator(server, 'admin');
      const b = await createOperator(server, 'admin');
      const [ab, ba] = await Promise.all([
        send('POST', `/api/ops/operators/${b.id}/disable`, a),
        send('POST', `/api/ops/operators/${a.id}/disable`, b),
      ]);
      const statuses = [ab.status, ba.status].sort();
      // the second, when its turn came, was asked by someone no longer an active admin (or whose session ended)
      expect(statuses[0]).toBe(200);
      expect([401, 403]).toContain(statuses[1]);
      const alive = [await me(a), await me(b)].filter((r) => r.status === 200);
      expect(alive).toHaveLength(1);
      // the refusal of one no longer an admin when their turn came is in the audit log, as any beyond one's role
      const loser = ab.status === 200 ? b : a;
      const winner = ab.status === 200 ? a : b;
      if ((ab.status === 200 ? ba : ab).status === 403) {
        const entries = await auditOf(winner, winner.id);
        expect(entries.map((e) => [e.action, e.operatorEmail])).toContainEqual(['denied', loser.email]);
      }
    }
  });

  it('an invitation sent again by an admin demoted while it waited its turn is refused, and audited', async () => {
    const admin = await createOperator(server, 'admin');
    const other = await createOperator(server, 'admin');
    const invited = await inviteThroughConsole(server, admin, mailbox, 'support');
    // the operators' turn held, as a change of another admin would hold it while it demotes this one
    const { resent } = await server.runtime.platform.db.tx(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('operator-staff:0', 0))");
      const resent = send<Envelope>('POST', `/api/ops/operators/${invited.id}/resend-invitation`, admin);
      // past the session's check at the request's start, waiting for its turn
      await waitUntil(async () => {
        const [w] = await server.runtime.platform.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        );
        return w!.n > 0;
      });
      await tx.query("UPDATE operators SET role = 'support' WHERE id = $1", [admin.id]);
      // the answer awaited once the turn is let go (the transaction's end), not inside it
      return { resent };
    });
    const answer = await resent;
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.error.message).toBe('Only an active admin changes operators');
    const entries = await auditOf(other, invited.id);
    expect(entries.map((e) => [e.action, e.operatorEmail])).toContainEqual(['denied', admin.email]);
    expect(entries.filter((e) => e.action === 'operator.invitation_resent')).toEqual([]);
  });

  it('a disable meeting invitations sent again and an enrolment being finished: each takes its turn, none fails', async () => {
    const admin = await createOperator(server, 'admin');
    for (let round = 0; round < 4; round++) {
      // invited again while disabled, twice, as it is disabled once more
      const invited = await inviteThroughConsole(server, admin, mailbox, 'support');
      const answers = await Promise.all([
        send('POST', `/api/ops/operators/${invited.id}/resend-invitation`, admin),
        send('POST', `/api/ops/operators/${invited.id}/disable`, admin),
        send('POST', `/api/ops/operators/${invited.id}/resend-invitation`, admin),
        send('POST', `/api/ops/operators/${invited.id}/disable`, admin),
      ]);
      for (const a of answers) expect(a.status, a.text).toBe(200);

      // an enrolment finished as its operator is disabled: either order, never an error, disabled in the end
      const enrolling = await inviteThroughConsole(server, admin, mailbox, 'risk');
      const accepted = await call<{ totpSecret: string }>(
        'POST',
        `${server.url}/api/ops/auth/accept-invitation`,
        {
          body: { token: enrolling.token, password: 'uma-senha-de-operador' },
        },
      );
      expect(accepted.status).toBe(200);
      const [enrolled, disabled] = await Promise.all([
        call<Envelope>('POST', `${server.url}/api/ops/auth/totp/enable`, {
          body: { token: enrolling.token, code: totpCode(accepted.body.totpSecret) },
        }),
        send<Changed>('POST', `/api/ops/operators/${enrolling.id}/disable`, admin),
      ]);
      expect(disabled.status, disabled.text).toBe(200);
      expect(disabled.body.operator.status).toBe('disabled');
      if (enrolled.status !== 204) expect(enrolled.body.error.code).toBe('INVALID_TOKEN');
      // the audit log's times in the order things happened
      const entries = await auditOf(admin, enrolling.id);
      const at = (action: string) => entries.find((e) => e.action === action)?.at;
      if (enrolled.status === 204) expect(at('operator.enrolled')! <= at('operator.disabled')!).toBe(true);
    }
  });
});

describe('gateway operators disable, at the server', () => {
  const env = () => ({
    DATABASE_URL: server.databaseUrl,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-staff-')),
  });

  it('disables by e-mail with the settings the README gives operator commands, and keeps the last active admin', async () => {
    const admin = await createOperator(server, 'admin');
    const invited = await inviteThroughConsole(server, admin, mailbox, 'support');
    const out = await runGateway(['operators', 'disable', '--email', invited.email.toUpperCase()], env());
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`(${invited.email}) is disabled`);
    // the link they were sent no longer works
    const accept = await call<Envelope>('POST', `${server.url}/api/ops/auth/accept-invitation`, {
      body: { token: invited.token, password: 'uma-senha-de-operador' },
    });
    expect(accept.status).toBe(400);
    expect(accept.body.error.code).toBe('INVALID_TOKEN');
    expect((await auditOf(admin, invited.id)).map((e) => [e.action, e.operatorEmail])).toContainEqual([
      'operator.disabled',
      'cli',
    ]);

    const unknown = await runGateway(['operators', 'disable', '--email', 'ninguem@gateway.example'], env());
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No operator has the e-mail ninguem@gateway.example');

    // every other active admin disabled from the command line: the last one is kept, and said why
    const operators = await call<{ data: { id: number; email: string; role: string; status: string }[] }>(
      'GET',
      `${server.url}/api/ops/operators`,
      { headers: admin.ops },
    );
    for (const o of operators.body.data) {
      if (o.role === 'admin' && o.status === 'active' && o.id !== admin.id) {
        expect((await runGateway(['operators', 'disable', '--email', o.email], env())).code).toBe(0);
      }
    }
    const last = await runGateway(['operators', 'disable', '--email', admin.email], env());
    expect(last.code).not.toBe(0);
    expect(last.stderr).toContain(`${admin.email} is the only active admin: invite another admin first`);
    expect((await me(admin)).status).toBe(200);
  }, 120_000);
});
