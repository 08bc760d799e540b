import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { OperatorInvitations } from '../../src/operators/index.js';
import type { OperatorRole } from '../../src/operators/roles.js';
import { call } from './http.js';
import { linkToken, type Mailbox } from './mailbox.js';
import type { TestServer } from './server.js';

export interface TestOperator {
  id: number;
  email: string;
  password: string;
  role: OperatorRole;
  totpSecret: string;
  cookie: string;
  csrf: string;
  /** Headers for console routes (the operator's cookie and CSRF token). */
  ops: Record<string, string>;
}

/** The code of the 30 s step `offset` steps from now (the gateway accepts one step either side). */
export function totpCode(secret: string, offset = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + offset * 30_000 });
}

/** Codes of steps -1, 0 and +1 are all valid: begin well inside a step so that the three stay distinct. */
export async function inFreshTotpStep(): Promise<void> {
  const intoStep = (Date.now() / 1000) % 30;
  if (intoStep > 20) await new Promise((r) => setTimeout(r, (31 - intoStep) * 1000));
}

/** An invitation made as `gateway operators create` makes it; its token (after the link's `#/convite/`). */
export async function inviteOperator(server: TestServer, role: OperatorRole, email?: string) {
  const { db, config } = server.runtime.platform;
  const invitations = new OperatorInvitations(
    db,
    { queue: server.runtime.platform.queue, key: config.secretsKey },
    config.secretsKey,
    config.publicUrl,
  );
  const address = email ?? `op-${randomBytes(6).toString('hex')}@gateway.example`;
  const invited = await invitations.invite(address, role, {
    id: null,
    email: 'test',
    ip: null,
    userAgent: null,
  });
  return { ...invited, token: invited.invitationUrl.split('#/convite/')[1]!, email: address };
}

/** An operator of `role`: invited, password set, TOTP enrolled (with the previous step's code), logged in. */
export async function createOperator(server: TestServer, role: OperatorRole): Promise<TestOperator> {
  await inFreshTotpStep();
  const invited = await inviteOperator(server, role);
  const password = `op-${randomBytes(8).toString('hex')}`;
  const accepted = await call<{ totpSecret: string }>(
    'POST',
    `${server.url}/api/ops/auth/accept-invitation`,
    {
      body: { token: invited.token, password },
    },
  );
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${accepted.text}`);
  const secret = accepted.body.totpSecret;
  const enabled = await call('POST', `${server.url}/api/ops/auth/totp/enable`, {
    body: { token: invited.token, code: totpCode(secret, -1) },
  });
  if (enabled.status !== 204) throw new Error(`enrolment failed: ${enabled.status} ${enabled.text}`);
  const { cookie, csrf } = await operatorLogin(server, invited.email, password, totpCode(secret, 0));
  return {
    id: invited.operator.id,
    email: invited.email,
    password,
    role,
    totpSecret: secret,
    cookie,
    csrf,
    ops: { cookie, 'x-csrf-token': csrf },
  };
}

export async function operatorLogin(server: TestServer, email: string, password: string, code: string) {
  const res = await call<{ csrfToken: string }>('POST', `${server.url}/api/ops/auth/login`, {
    body: { email, password, totpCode: code },
  });
  if (res.status !== 200) throw new Error(`operator login failed: ${res.status} ${res.text}`);
  const setCookie = res.headers['set-cookie'];
  const raw = Array.isArray(setCookie) ? setCookie[0]! : setCookie!;
  return { cookie: raw.split(';')[0]!, csrf: res.body.csrfToken, setCookies: [setCookie].flat() as string[] };
}

/**
 * An invitation made by an admin in the console: the API answers that it was sent, never the link; the token
 * is read from the invitee's e-mail.
 */
export async function inviteThroughConsole(
  server: TestServer,
  admin: TestOperator,
  mailbox: Mailbox,
  role: OperatorRole,
) {
  const email = `op-${randomBytes(6).toString('hex')}@gateway.example`;
  const res = await call<{ operator: { id: number; email: string }; invitationSent: true }>(
    'POST',
    `${server.url}/api/ops/operators`,
    { headers: admin.ops, body: { email, role } },
  );
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${res.text}`);
  const mail = await mailbox.waitFor(email, /console de operação/);
  return { answer: res, id: res.body.operator.id, email, token: linkToken(mail, 'convite') };
}

/** An account put on a fee plan of its own by a finance (or admin) operator, as approval needs one. */
export async function giveFeePlan(server: TestServer, operator: TestOperator, accountId: number | string) {
  const planId = await createFeePlan(server, operator);
  const assigned = await call('POST', `${server.url}/api/ops/accounts/${accountId}/fee-plan`, {
    headers: operator.ops,
    body: { planId },
  });
  if (assigned.status !== 200) throw new Error(`fee plan assignment: ${assigned.status} ${assigned.text}`);
  return planId;
}

/** A fee plan's whole body, as the console sends it. */
export const feePlanBody = (name: string) => ({
  name,
  pixPercent: '0.99',
  pixFixedCents: 0,
  boletoFixedCents: 0,
  creditPercent: { '1': '3.49', '2-6': '4.29', '7-12': '4.99' },
  debitPercent: '1.99',
  anticipationMonthlyPercent: '3',
  cashoutFixedCents: 0,
});

/** A fee plan made by a finance (or admin) operator, assigned to nobody; its id. */
export async function createFeePlan(
  server: TestServer,
  operator: TestOperator,
  name = `Plano ${randomBytes(4).toString('hex')}`,
): Promise<number> {
  const created = await call<{ id: number }>('POST', `${server.url}/api/ops/fee-plans`, {
    headers: operator.ops,
    body: feePlanBody(name),
  });
  if (created.status !== 201) throw new Error(`fee plan: ${created.status} ${created.text}`);
  return created.body.id;
}

/**
 * Signs an operator in through the console's page with the next step's code (createOperator's own login spent
 * this one), and waits for the menu.
 */
export async function signInToConsole(page: Page, server: TestServer, op: TestOperator): Promise<void> {
  await page.goto(`${server.url}/ops`);
  await page.getByLabel('E-mail').fill(op.email);
  await page.getByLabel('Senha').fill(op.password);
  await page.getByLabel('Código do autenticador').fill(totpCode(op.totpSecret, 1));
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByRole('navigation', { name: 'Principal' }).waitFor();
}
