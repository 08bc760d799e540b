import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/platform/db/db.js';
import { runGateway } from '../support/cli.js';
import { call } from '../support/http.js';
import { linkToken, Mailbox } from '../support/mailbox.js';
import { inFreshTotpStep, totpCode } from '../support/operators.js';
import { freshDatabase } from '../support/pg.js';
import { type ChildServer, spawnGateway } from '../support/server.js';

/**
 * `gateway operators create`, the first operator's only door, run as the README says: a child process with
 * the settings the README gives operator commands and nothing else (no SECRETS_KEY, and no dev secret file
 * written), then the invitation it printed accepted, TOTP enrolled and a console login made against `gateway
 * serve` on the same data. Run before any gateway, it prints the link alone; run beside a gateway, in
 * production, its e-mail (sealed to the key the gateway published) is sent by the gateway's workers.
 */
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-ops-cli-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function firstOperatorJourney(env: Record<string, string>) {
  const email = `primeira-${Date.now()}@gateway.example`;
  const created = await runGateway(['operators', 'create', '--email', email, '--role', 'admin'], env);
  expect(created.stderr).toBe('');
  expect(created.code).toBe(0);
  const link = /invitation link \(shown once, valid 72 hours\): (\S+)/.exec(created.stdout)?.[1];
  expect(link, created.stdout).toMatch(/\/ops#\/convite\/\S+$/);
  const token = link!.split('#/convite/')[1]!;
  // no gateway has published the key its e-mail would be sealed to: said, and no dev secret written
  expect(created.stdout).toMatch(/not e-mailed: no gateway has started on this database yet/);
  expect(existsSync(path.join(env.DATA_DIR!, 'dev-secrets-key'))).toBe(false);
  expect(existsSync(path.join(env.DATA_DIR!, 'dev-postback-secret'))).toBe(false);

  const server: ChildServer = await spawnGateway(['serve'], env);
  cleanups.push(() => server.stop());
  const accepted = await call<{ totpSecret: string; otpauthUrl: string }>(
    'POST',
    `${server.url}/api/ops/auth/accept-invitation`,
    { body: { token, password: 'uma-senha-longa-de-operador' } },
  );
  expect(accepted.status, accepted.text).toBe(200);
  await inFreshTotpStep();
  const enabled = await call('POST', `${server.url}/api/ops/auth/totp/enable`, {
    body: { token, code: totpCode(accepted.body.totpSecret, -1) },
  });
  expect(enabled.status, enabled.text).toBe(204);
  const login = await call<{ operator: { email: string; role: string } }>(
    'POST',
    `${server.url}/api/ops/auth/login`,
    {
      body: { email, password: 'uma-senha-longa-de-operador', totpCode: totpCode(accepted.body.totpSecret) },
    },
  );
  expect(login.status, login.text).toBe(200);
  expect(login.body.operator).toMatchObject({ email, role: 'admin' });
  server.logs.end();
}

describe('gateway operators create makes the first operator', () => {
  it('with DATABASE_URL and nothing else the README gives', async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    await firstOperatorJourney({ DATABASE_URL: db.url, DATA_DIR: dataDir() });
  }, 120_000);

  it('in production beside a running gateway, without SECRETS_KEY: the gateway’s workers e-mail the invitation', async () => {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    const mailbox = await Mailbox.start();
    cleanups.push(() => mailbox.stop());
    const secretsKey = randomBytes(32).toString('base64');
    // the API and the workers apart; the worker process, started last, is not given PUBLIC_URL: its own
    // default address must not replace the one the API published
    const server = await spawnGateway(['serve', '--no-worker'], {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir(),
      SMTP_URL: mailbox.url,
      SECRETS_KEY: secretsKey,
      PUBLIC_URL: 'https://gateway.example:8443',
    });
    cleanups.push(() => server.stop());
    const worker = await spawnGateway(['worker'], {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir(),
      SMTP_URL: mailbox.url,
      SECRETS_KEY: secretsKey,
    });
    cleanups.push(() => worker.stop());
    const email = `segunda-${Date.now()}@gateway.example`;
    const operatorShell = dataDir();
    const created = await runGateway(['operators', 'create', '--email', email, '--role', 'risk', '--json'], {
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      DATA_DIR: operatorShell,
    });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const result = JSON.parse(created.stdout) as { invitationUrl: string; invitationMailed: boolean };
    expect(result.invitationMailed).toBe(true);
    // the link points where the gateway said it is (its PUBLIC_URL), not at this shell's default
    expect(result.invitationUrl).toMatch(/^https:\/\/gateway\.example:8443\/ops#\/convite\//);
    expect(existsSync(path.join(operatorShell, 'dev-secrets-key'))).toBe(false);
    // sealed at rest, to the gateway: not the link in clear
    const reader = openDb({ databaseUrl: db.url, poolMax: 1 });
    cleanups.push(() => reader.close());
    const [stored] = await reader.query<{ text_body: string }>(
      'SELECT text_body FROM mail_messages WHERE recipient = $1',
      [email],
    );
    expect(stored!.text_body).toMatch(/^v2\./);
    expect(stored!.text_body).not.toContain(result.invitationUrl.split('#/convite/')[1]);
    const mail = await mailbox.waitFor(email, /convite|operador/i);
    expect(linkToken(mail, 'convite')).toBe(result.invitationUrl.split('#/convite/')[1]);
    server.logs.end();
    worker.logs.end();
  }, 120_000);

  it('on the embedded default (no DATABASE_URL), as `npx gateway operators create` from a fresh clone', async () => {
    const dir = dataDir();
    // the embedded server the command starts is stopped by the last gateway process leaving it (README)
    await firstOperatorJourney({ DATA_DIR: dir });
  }, 180_000);
});
