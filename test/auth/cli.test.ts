/** `gateway keys create`: a key pair from the command line works on the API at once, its secret shown once. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, runGateway } from '../support/cli.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer({ workers: false });
  env = { DATABASE_URL: server.databaseUrl, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-keys-')) };
});
afterAll(() => server?.close());

const gateway = (...args: string[]) => runGateway(args, env);

async function account(): Promise<number> {
  const r = await gateway(
    'accounts',
    'create',
    '--name',
    'Loja',
    '--email',
    `k-${Date.now()}@example.com`,
    '--password',
    'uma-senha-longa-1',
    '--json',
  );
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { id: number }).id;
}

describe('gateway keys create', () => {
  it('issues a pair that authenticates, prints the private key once, stores only its hash, audited', async () => {
    const id = await account();
    const r = await gateway('keys', 'create', '--account', String(id), '--name', 'loja (produção)', '--json');
    expect(r.code, r.stderr).toBe(0);
    const issued = JSON.parse(r.stdout) as {
      id: number;
      accountId: number;
      name: string;
      scope: string;
      publicKey: string;
      privateKey: string;
    };
    expect(issued).toMatchObject({ accountId: id, name: 'loja (produção)', scope: 'full' });
    const keys = { 'x-api-public-key': issued.publicKey, 'x-api-private-key': issued.privateKey };
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: keys })).status).toBe(200);
    const { db } = server.runtime.platform;
    const stored = await db.query<Record<string, unknown>>('SELECT * FROM api_credentials WHERE id = $1', [
      issued.id,
    ]);
    expect(JSON.stringify(stored)).not.toContain(issued.privateKey);
    const audit = await db.query<{ action: string; actor_type: string }>(
      `SELECT action, actor_type FROM audit_log WHERE account_id = $1 AND action = 'credential.created'`,
      [id],
    );
    expect(audit).toEqual([{ action: 'credential.created', actor_type: 'operator' }]);

    const text = await gateway('keys', 'create', '--account', String(id), '--name', 'leitura', '--read-only');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/scope read/);
    const privateKey = /x-api-private-key: (\S+)/.exec(text.stdout)![1]!;
    const publicKey = /x-api-public-key:\s+(\S+)/.exec(text.stdout)![1]!;
    const readOnly = { 'x-api-public-key': publicKey, 'x-api-private-key': privateKey };
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: readOnly })).status).toBe(200);
    const cashout = await call('POST', `${server.url}/api/public/cashout`, {
      headers: readOnly,
      body: { amount: 150, pixKey: '52998224725' },
    });
    expect(cashout.status).toBe(403);

    // --env: shell export lines, evaluated by a real shell, make a key pair that works
    const exported = await gateway(
      'keys',
      'create',
      '--account',
      String(id),
      '--name',
      'ci',
      '--scope',
      'charges',
      '--env',
    );
    expect(exported.code, exported.stderr).toBe(0);
    const exports = lines(exported.stdout).filter((l) => l.startsWith('export '));
    expect(exports.map((l) => l.split('=')[0])).toEqual([
      'export GATEWAY_PUBLIC_KEY',
      'export GATEWAY_PRIVATE_KEY',
    ]);
    const shell = spawnSync(
      'sh',
      ['-c', `${exported.stdout}\nprintf '%s %s' "$GATEWAY_PUBLIC_KEY" "$GATEWAY_PRIVATE_KEY"`],
      {
        encoding: 'utf8',
      },
    );
    const [pk, sk] = shell.stdout.split(' ');
    const charges = { 'x-api-public-key': pk!, 'x-api-private-key': sk! };
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: charges })).status).toBe(200);
    const [scoped] = await db.query<{ scope: string }>(
      'SELECT scope FROM api_credentials WHERE public_key = $1',
      [pk],
    );
    expect(scoped!.scope).toBe('charges');
    const bad = await gateway('keys', 'create', '--account', String(id), '--name', 'x', '--scope', 'admin');
    expect(bad.code).toBe(2);
  });

  it('exit 1 for an unknown account, exit 2 for bad usage, one line each', async () => {
    const unknown = await gateway('keys', 'create', '--account', '999999999', '--name', 'x');
    expect(unknown.code).toBe(1);
    expect(lines(unknown.stderr)).toEqual(['error: no account with id 999999999']);
    for (const args of [
      ['--name', 'x'],
      ['--account', 'abc', '--name', 'x'],
      ['--account', '1'],
    ]) {
      const r = await gateway('keys', 'create', ...args);
      expect(r.code, r.stderr).toBe(2);
      expect(lines(r.stderr)).toHaveLength(1);
    }
  });
});
