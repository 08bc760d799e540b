import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliResult, lines, runGateway } from '../support/cli.js';
import { login } from '../support/factories.js';
import { call } from '../support/http.js';
import { type ChildServer, spawnGateway } from '../support/server.js';

/** `gateway serve` without DATABASE_URL: the embedded PostgreSQL (PGlite) in a fresh DATA_DIR. */
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-embedded-'));
const env = { DATA_DIR: dataDir, NODE_ENV: 'test', DATABASE_URL: '' };
let server: ChildServer | undefined;

const serve = () => spawnGateway(['serve'], env);
const cli = (args: string[]) => runGateway(args, env);
const json = <T>(r: CliResult) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};

afterAll(async () => {
  await server?.stop();
});

describe('embedded database', () => {
  let accountId: number;
  let keys: Record<string, string>;

  it('serves the same flows as on PostgreSQL, with the CLI forwarded into the running server', async () => {
    server = await serve();
    expect((await call('GET', `${server.url}/health`)).body).toEqual({ status: 'ok' });

    const account = json<{ id: number; email: string; name: string }>(
      await cli([
        'accounts',
        'create',
        '--name',
        'Embedded',
        '--email',
        'emb@example.com',
        '--password',
        'emb-password',
        '--json',
      ]),
    );
    expect(account).toEqual({ id: expect.any(Number), email: 'emb@example.com', name: 'Embedded' });
    accountId = account.id;
    const dup = await cli([
      'accounts',
      'create',
      '--name',
      'X',
      '--email',
      'emb@example.com',
      '--password',
      'emb-password',
    ]);
    expect(dup.code).toBe(1);
    expect(lines(dup.stderr)).toEqual([expect.stringMatching(/already exists/)]);

    const session = await login(server, 'emb@example.com', 'emb-password');
    const panel = { cookie: session.cookie, 'x-csrf-token': session.csrf };
    const cred = await call<{ id: number; publicKey: string; privateKey: string }>(
      'POST',
      `${server.url}/api/credentials`,
      { headers: panel },
    );
    expect(cred.status).toBe(201);
    keys = { 'x-api-public-key': cred.body.publicKey, 'x-api-private-key': cred.body.privateKey };
    const balance = await call('GET', `${server.url}/api/public/balance`, { headers: keys });
    expect(balance.status).toBe(200);
    expect(balance.body).toEqual({ available: 0, blocked: 0, total: 0 });

    const ips = await call('PUT', `${server.url}/api/settings/allowed-ips`, {
      headers: panel,
      body: { ips: ['::ffff:127.0.0.1', '2001:DB8::1'] },
    });
    expect(ips.body).toEqual({ ips: ['127.0.0.1', '2001:db8::1'] });
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: keys })).status).toBe(200);
    const refused = await call('GET', `${server.url}/api/public/balance`, {
      headers: keys,
      localAddress: '127.0.0.2',
    });
    expect(refused.status).toBe(403);

    // revocation is immediate here too
    const extra = await call<{ id: number; publicKey: string; privateKey: string }>(
      'POST',
      `${server.url}/api/credentials`,
      { headers: panel },
    );
    const extraKeys = {
      'x-api-public-key': extra.body.publicKey,
      'x-api-private-key': extra.body.privateKey,
    };
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: extraKeys })).status).toBe(200);
    expect(
      (await call('DELETE', `${server.url}/api/credentials/${extra.body.id}`, { headers: panel })).status,
    ).toBe(204);
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: extraKeys })).status).toBe(401);

    const off = json<{ value: string }>(await cli(['settings', 'set', 'api-withdrawals', 'off', '--json']));
    expect(off.value).toBe('off');

    // a second server on the same DATA_DIR is refused with one clear line, and the first keeps working
    const second = await runGateway(['serve'], { ...env, PORT: '0' });
    expect(second.code).toBe(1);
    expect(lines(second.stderr)).toEqual([expect.stringMatching(/in use by process/)]);
    expect((await call('GET', `${server.url}/health`)).status).toBe(200);
  });

  it('runs operator commands directly when no server runs, and the data is there after a restart', async () => {
    expect(await server!.stop()).toBe(0);
    server = undefined;
    expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);

    const updated = json<{ id: number; transfers: string; cashoutFeeFixed: string }>(
      await cli([
        'accounts',
        'update',
        '--id',
        String(accountId),
        '--transfers',
        'off',
        '--cashout-fee-fixed',
        '1.50',
        '--json',
      ]),
    );
    expect(updated).toMatchObject({ id: accountId, transfers: 'off', cashoutFeeFixed: '1.50' });
    json(
      await cli([
        'accounts',
        'create',
        '--name',
        'Offline',
        '--email',
        'off@example.com',
        '--password',
        'off-password',
        '--json',
      ]),
    );
    const missing = await cli(['accounts', 'update', '--id', '999999', '--transfers', 'on']);
    expect(missing.code).toBe(1);
    expect(lines(missing.stderr)).toHaveLength(1);
    expect(json<{ applied: string[] }>(await cli(['migrate', '--json'])).applied).toEqual([]);
    expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);

    server = await serve();
    expect((await call('GET', `${server.url}/health`)).status).toBe(200);
    await login(server, 'off@example.com', 'off-password');
    const session = await login(server, 'emb@example.com', 'emb-password');
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: keys })).status).toBe(200);
    const ips = await call('GET', `${server.url}/api/settings/allowed-ips`, {
      headers: { cookie: session.cookie },
    });
    expect(ips.body).toEqual({ ips: ['127.0.0.1', '2001:db8::1'] });
    const verify = json<{ ok: boolean }>(await cli(['ledger', 'verify', '--json']));
    expect(verify.ok).toBe(true);
  });
});
