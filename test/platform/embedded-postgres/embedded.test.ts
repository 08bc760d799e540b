import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../../src/platform/embedded-postgres/start.js';
import { type CliResult, lines, runGateway } from '../../support/cli.js';
import { login } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { type ChildServer, spawnGateway } from '../../support/server.js';

/** `gateway serve` without DATABASE_URL: the embedded PostgreSQL server in a fresh DATA_DIR. */
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-embedded-'));
const env = { DATA_DIR: dataDir, NODE_ENV: 'test', DATABASE_URL: '' };
let server: ChildServer | undefined;
let worker: ChildServer | undefined;

const serve = () => spawnGateway(['serve'], env);
const cli = (args: string[]) => runGateway(args, env);
const json = <T>(r: CliResult) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};

afterAll(async () => {
  await worker?.stop();
  await server?.stop();
});

/**
 * What a failed test left running (its gateway, its worker, their database server) stopped, so that the next
 * test starts as it expects and fails, if it does, on its own account.
 */
async function noLeftovers(): Promise<void> {
  for (const child of [worker, server]) await child?.stop('SIGKILL');
  worker = undefined;
  server = undefined;
  const pid = postmaster();
  if (pid !== null) {
    process.kill(pid, 'SIGINT'); // PostgreSQL's fast shutdown
    await until(() => postmaster() === null, 30_000);
  }
}

/**
 * The running gateway answers the balance, 200 or 503 until 200 (a pooled connection still open to a dead
 * server's backends, which outlive their postmaster a while on a loaded machine, fails its first statement:
 * that request is answered 503, the retryable answer, and the pool's next connection goes to the new server);
 * then it stops, and its database server with it.
 */
async function servesBalanceThenStops(keys: Record<string, string>): Promise<void> {
  await until(async () => {
    const { status } = await call('GET', `${server!.url}/api/public/balance`, { headers: keys });
    expect([200, 503]).toContain(status);
    return status === 200;
  }, 30_000);
  expect(await server!.stop()).toBe(0);
  server = undefined;
  expect(postmaster()).toBeNull();
}

/** The postmaster recorded in the cluster's pid file, when that process is alive. */
function postmaster(): number | null {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

describe('embedded database', () => {
  let accountId: number;
  let keys: Record<string, string>;

  it('serves the API with operator commands and a worker process as plain clients of the same database', async () => {
    server = await serve();
    expect(server.output()).toMatch(/embedded PostgreSQL started on 127\.0\.0\.1:\d+/);
    expect(postmaster()).not.toBeNull();
    // the server's log can quote statements and their data; the password file is the owner's alone too
    expect(statSync(path.join(dataDir, 'postgres.log')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'postgres.password')).mode & 0o777).toBe(0o600);
    if (process.getuid?.() === 0) {
      // PostgreSQL refuses root: the database server runs as the postgres system user
      expect(
        execFileSync('stat', ['-c', '%U', path.join(dataDir, 'postgres')])
          .toString()
          .trim(),
      ).toBe('postgres');
    }
    worker = await spawnGateway(['worker'], env);
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
    expect(balance.body).toEqual({ available: 0, blocked: 0, total: 0, receivable: 0 });

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

    // a second API process on the same DATA_DIR shares the database, and a key revoked through one is
    // refused by both at once
    const second = await spawnGateway(['serve', '--no-worker'], env);
    try {
      expect(second.output()).not.toMatch(/embedded PostgreSQL started/);
      expect((await call('GET', `${second.url}/api/public/balance`, { headers: keys })).status).toBe(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    expect(postmaster()).not.toBeNull(); // the other processes still use it
    expect((await call('GET', `${server.url}/health`)).status).toBe(200);
  });

  it('runs operator commands directly when no server runs, and the data is there after a restart', async () => {
    expect(await worker!.stop()).toBe(0);
    worker = undefined;
    expect(await server!.stop()).toBe(0);
    server = undefined;
    expect(postmaster()).toBeNull(); // the last process out stopped the server it started

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
    expect(postmaster()).toBeNull(); // each command stopped the server it started

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

  it('comes back on its own after the gateway, and then its database server, are SIGKILLed', async () => {
    const before = postmaster();
    expect(before).not.toBeNull();
    expect(await server!.stop('SIGKILL')).toBeNull();
    server = undefined;
    expect(postmaster()).toBe(before); // orphaned, still running

    server = await serve();
    expect(server.output()).not.toMatch(/embedded PostgreSQL started/); // reused
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: keys })).status).toBe(200);

    process.kill(before!, 'SIGKILL');
    expect(await server.stop('SIGKILL')).toBeNull();
    server = undefined;
    await until(() => postmaster() === null);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(true); // stale

    server = await serve();
    expect(server.output()).toMatch(/embedded PostgreSQL started/);
    const session = await login(server, 'emb@example.com', 'emb-password');
    expect(session.cookie).toBeTruthy();
    expect((await call('GET', `${server.url}/api/public/balance`, { headers: keys })).status).toBe(200);
    expect(json<{ ok: boolean }>(await cli(['ledger', 'verify', '--json'])).ok).toBe(true);
    expect(await server.stop()).toBe(0);
    server = undefined;
    expect(postmaster()).toBeNull();
  });

  it('starts its database server again when it dies under a running gateway', async () => {
    await noLeftovers();
    server = await serve();
    const first = postmaster();
    expect(first).not.toBeNull();
    process.kill(first!, 'SIGKILL'); // the OOM killer, say
    // the watch looks every 5 s, and a start waits up to a minute for the killed server's backends to let go
    // of its memory (they outlive it a while on a loaded machine): 30 s was not enough in a proving run
    await until(() => /was not running: started it again/.test(server!.output()), 90_000);
    const again = postmaster();
    expect(again).not.toBeNull();
    expect(again).not.toBe(first);
    await until(async () => (await call('GET', `${server!.url}/health`)).status === 200, 30_000);
    await servesBalanceThenStops(keys);
  }, 180_000);

  it('waits for a killed database server’s processes to let go of its memory, then starts it again', async () => {
    await noLeftovers();
    server = await serve();
    const first = postmaster()!;
    expect(await server.stop('SIGKILL')).toBeNull();
    server = undefined;
    // its backends and helpers, held still: alive after their postmaster, as on a loaded machine
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(first)])
      .toString()
      .split('\n')
      .map(Number)
      .filter((pid) => pid > 0);
    // a backend that ended since the list was read (its client closed) is gone: only the living are held
    const signal = (pid: number, sig: NodeJS.Signals) => {
      try {
        process.kill(pid, sig);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
        throw err;
      }
    };
    const held = children.filter((pid) => signal(pid, 'SIGSTOP'));
    expect(held.length).toBeGreaterThan(0);
    process.kill(first, 'SIGKILL');
    await until(() => postmaster() === null);
    const log = path.join(dataDir, 'postgres.log');
    const from = statSync(log).size;
    const starting = serve();
    try {
      await until(() => /is still in use/.test(readFileSync(log).subarray(from).toString()), 20_000);
    } finally {
      for (const pid of held) signal(pid, 'SIGCONT');
    }
    server = await starting;
    expect(server.output()).toMatch(/killed server’s processes still hold its memory; waiting for them/);
    expect(server.output()).toMatch(/embedded PostgreSQL started/);
    await servesBalanceThenStops(keys);
  });

  it('runs operator commands side by side with no server running: each one succeeds, with one document', async () => {
    await noLeftovers();
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(Array.from({ length: 4 }, () => cli(['ledger', 'verify', '--json'])));
      for (const r of results) expect(json<{ ok: boolean }>(r).ok).toBe(true);
    }
    expect(postmaster()).toBeNull();
  });

  it('clears a stale pid file whose pid another program called postgres has taken since', async () => {
    // after a crash and a reboot the recorded pid may be another PostgreSQL's: a process named postgres
    // whose working directory is not the cluster
    const bin = mkdtempSync(path.join(tmpdir(), 'gw-other-'));
    const impostor = path.join(bin, 'postgres');
    copyFileSync(process.execPath, impostor);
    const other = spawn(impostor, ['-e', 'setTimeout(() => {}, 60000)'], { cwd: bin, stdio: 'ignore' });
    try {
      const cluster = path.join(dataDir, 'postgres');
      writeFileSync(path.join(cluster, 'postmaster.pid'), `${other.pid}\n${cluster}\n0\n5432\n`);
      expect(json<{ ok: boolean }>(await cli(['ledger', 'verify', '--json'])).ok).toBe(true);
    } finally {
      other.kill('SIGKILL');
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

/**
 * Run as root, the tests above start the server as root (the database then runs as the postgres system
 * user); this one runs the gateway itself as an ordinary user, where the machine lets us switch to one.
 */
const asOrdinaryUser = (() => {
  if (process.getuid?.() !== 0) return null;
  try {
    execFileSync('runuser', ['-u', 'nobody', '--', 'test', '-r', path.resolve('dist/bundle/main.mjs')]);
    return 'nobody';
  } catch {
    return null; // no runuser, or the checkout is not readable by others
  }
})();

describe.skipIf(asOrdinaryUser === null)('embedded database as an ordinary user', () => {
  it('initialises, serves operator commands and stops as that user', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-embedded-user-'));
    chownSync(dir, Number(execFileSync('id', ['-u', 'nobody']).toString()), -1);
    try {
      const run = (args: string[]) =>
        execFileSync(
          'runuser',
          [
            '-u',
            'nobody',
            '--',
            'env',
            `DATA_DIR=${dir}`,
            'HOME=/tmp',
            'NODE_ENV=test',
            process.execPath,
            path.resolve('dist/bundle/main.mjs'),
            ...args,
          ],
          { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
        );
      const made = JSON.parse(
        run([
          'accounts',
          'create',
          '--name',
          'U',
          '--email',
          'u@example.com',
          '--password',
          'user-password',
          '--json',
        ]),
      ) as { email: string };
      expect(made.email).toBe('u@example.com');
      expect(JSON.parse(run(['ledger', 'verify', '--json']))).toMatchObject({ ok: true });
      const owner = execFileSync('stat', ['-c', '%U', path.join(dir, 'postgres')])
        .toString()
        .trim();
      expect(owner).toBe('nobody');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Waits until `check` holds once. Not asked again after it held: while the database comes back, the gateway's
 * pooled connections to the killed server fail one by one, so /health may answer 200 and then 503 once more
 * (asking again after the 200 failed a proving run).
 */
async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(await check()).toBe(true);
}

describe.skipIf(process.getuid?.() !== 0)(
  'embedded database as root, in a folder only root may enter',
  () => {
    it('puts its cluster in a folder of its own that the server user can reach, and finds it again', async () => {
      const closed = mkdtempSync(path.join(tmpdir(), 'gw-closed-')); // 0700: user postgres cannot pass
      const dir = path.join(closed, 'checkout', 'data');
      const fallbackRoot = mkdtempSync(path.join(tmpdir(), 'gw-fallback-'));
      chmodSync(fallbackRoot, 0o711);
      const messages: string[] = [];
      try {
        const first = await startEmbeddedPostgres(dir, (m) => messages.push(m), { fallbackRoot });
        first.releaseStartLock();
        const client = new pg.Client({ connectionString: first.url });
        await client.connect();
        await client.query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
        await client.end();
        expect(await first.stopIfUnused()).toBe(true);
        expect(messages.join('\n')).toMatch(/cannot reach .*: the embedded PostgreSQL cluster goes to /);
        expect(existsSync(path.join(dir, 'postgres'))).toBe(false);
        const [own] = readdirSync(fallbackRoot);
        expect(existsSync(path.join(fallbackRoot, own!, 'postgres', 'PG_VERSION'))).toBe(true);

        const again = await startEmbeddedPostgres(dir, () => undefined, { fallbackRoot });
        again.releaseStartLock();
        const c2 = new pg.Client({ connectionString: again.url });
        await c2.connect();
        expect((await c2.query('SELECT n FROM kept')).rows).toEqual([{ n: 7 }]);
        await c2.end();
        expect(await again.stopIfUnused()).toBe(true);
        expect(readdirSync(fallbackRoot)).toEqual([own]);
      } finally {
        rmSync(closed, { recursive: true, force: true });
        rmSync(fallbackRoot, { recursive: true, force: true });
      }
    }, 120_000);
  },
);
