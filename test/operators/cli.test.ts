import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGateway } from '../support/cli.js';
import { call } from '../support/http.js';
import { inFreshTotpStep, totpCode } from '../support/operators.js';
import { freshDatabase } from '../support/pg.js';
import { type ChildServer, spawnGateway } from '../support/server.js';

/**
 * `gateway operators create`, the first operator's only door, run as the README says: a child process with
 * the settings the README gives and nothing else (no SECRETS_KEY: the dev secrets in DATA_DIR), then the
 * invitation it printed accepted, TOTP enrolled and a console login made against `gateway serve` on the same
 * data.
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

  it('on the embedded default (no DATABASE_URL), as `npx gateway operators create` from a fresh clone', async () => {
    const dir = dataDir();
    // the embedded server the command starts is stopped by the last gateway process leaving it (README)
    await firstOperatorJourney({ DATA_DIR: dir });
  }, 180_000);
});
