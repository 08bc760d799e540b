import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/accounts/accounts.js';
import { type Db, openDb } from '../src/platform/db/db.js';
import { freshDatabase } from './support/pg.js';
import { spawnGateway } from './support/server.js';
import { waitUntil } from './support/wait.js';

let database: { url: string; drop: () => Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await freshDatabase();
  db = await openDb({ databaseUrl: database.url });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const until = (condition: () => boolean, what: string) =>
  waitUntil(
    () => condition() || undefined,
    20_000,
    () => what,
  );

/** A gateway (`serve`) with one login request in flight: its headers and the first bytes of its body sent. */
async function gatewayHoldingARequest(body: string) {
  const gateway = await spawnGateway(['serve'], {
    DATABASE_URL: database.url,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-drain-')),
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug', // "incoming request" (debug) says when the request has arrived
  });
  const exited = once(gateway.process, 'exit');
  const { hostname, port } = new URL(gateway.url);
  const req = http.request({
    host: hostname,
    port,
    method: 'POST',
    path: '/api/auth/login',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  req.on('error', () => undefined);
  const response = once(req, 'response') as Promise<[http.IncomingMessage]>;
  response.catch(() => undefined); // a test that kills the gateway never gets it: not an unhandled rejection
  req.write(body.slice(0, 10));
  await until(
    () => /"url":"\/api\/auth\/login"[^\n]*"msg":"incoming request"/.test(gateway.output()),
    'request',
  );
  return { gateway, exited, req, response };
}

describe('SIGTERM, SIGINT', () => {
  it('drains a request still in flight, then closes the database and exits 0, a repeated ^C included', async () => {
    const account = await createAccount(db, {
      name: 'Drain',
      email: 'drain@example.com',
      password: 'drain-password',
    });
    const backends = async () =>
      (
        await db.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
        )
      ).map((r) => r.pid);
    const ours = await backends();
    const body = JSON.stringify({ email: 'drain@example.com', password: 'drain-password' });
    const { gateway, exited, req, response } = await gatewayHoldingARequest(body); // the request is in flight

    // `npm start` under a terminal: one ^C reaches the process twice (the terminal's, then npm's forward)
    // (sent back to back the kernel would merge them into one)
    gateway.process.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    gateway.process.kill('SIGINT');
    await until(() => gateway.output().includes('"msg":"shutting down"'), 'shutdown to begin');
    expect(gateway.process.exitCode).toBeNull(); // still waiting for our request

    req.end(body.slice(10));
    const [res] = await response;
    let text = '';
    for await (const chunk of res) text += chunk;
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ user: { id: account.id, email: 'drain@example.com' } });

    const [code] = await exited;
    expect(code).toBe(0);
    // the database connections were closed cleanly: none is left for this database
    const left = async () => (await backends()).filter((pid) => !ours.includes(pid));
    await expect.poll(left, { timeout: 10_000 }).toEqual([]);
    expect(gateway.output()).not.toMatch(/"level":(50|60)/); // no error logged while shutting down
  });

  it('a signal sent again later exits at once, without waiting for the drain', async () => {
    // a body announced longer than sent: the request never ends and holds the drain
    const { gateway, exited, req } = await gatewayHoldingARequest(`{${' '.repeat(99)}`);
    gateway.process.kill('SIGTERM');
    await until(() => gateway.output().includes('"msg":"shutting down"'), 'shutdown to begin');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(gateway.process.exitCode).toBeNull();
    gateway.process.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(1);
    expect(gateway.output()).toContain('SIGTERM again: exiting without waiting for the drain');
    req.destroy();
  });

  it('a stopped `gateway worker` exits 0 too', async () => {
    const worker = await spawnGateway(['worker'], {
      DATABASE_URL: database.url,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-worker-')),
      NODE_ENV: 'test',
    });
    expect(worker.output()).toContain('"msg":"workers started"');
    expect(await worker.stop('SIGTERM')).toBe(0);
  });

  it('a `gateway worker` given WORKER_PORT answers /health and its own /metrics there', async () => {
    const worker = await spawnGateway(['worker'], {
      DATABASE_URL: database.url,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-worker-')),
      NODE_ENV: 'test',
      METRICS_TOKEN: 'worker-token',
      WORKER_PORT: String(await freePort()),
    });
    await until(
      () => /"msg":"worker listening for \/health and \/metrics"/.test(worker.output()),
      'listening',
    );
    const url = /"url":"(http:\/\/[^"]+)","msg":"worker listening/.exec(worker.output())![1]!;
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer worker-token' } });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toContain('gateway_webhook_deliveries_total');
    expect(text).toContain('gateway_payout_provider_seconds');
    // nothing of the API: a worker serves no merchant route
    expect((await fetch(`${url}/api/public/balance`)).status).toBe(404);
    expect(await worker.stop('SIGTERM')).toBe(0);
  });

  it('SIGHUP (the terminal that ran it closed) shuts down the same way, exit 0', async () => {
    const gateway = await spawnGateway(['serve'], {
      DATABASE_URL: database.url,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-hup-')),
      NODE_ENV: 'test',
    });
    expect(await gateway.stop('SIGHUP')).toBe(0);
    expect(gateway.output()).toContain('"signal":"SIGHUP"');
  });
});

describe('a signal while starting', () => {
  it('stops a gateway still waiting for its database as asked: exit 0, no "shutdown failed"', async () => {
    const closed = await freePort(); // nothing listens there: the start waits and tries again
    const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../bin/gateway.js'), 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/nowhere`,
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-waiting-')),
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    const exited = once(child, 'exit');
    await waitUntil(
      () => /trying again/.test(out) || undefined,
      30_000,
      () => `waiting for its database:\n${out}`,
    );
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code, out).toBe(0);
    expect(out).toContain('SIGTERM: stopped before start-up finished');
    expect(out).not.toContain('shutdown failed');
  });
});

describe('npm start, npx gateway serve', () => {
  it.each([
    ['npm start', ['start']],
    ['npx gateway serve', ['exec', '--', 'gateway', 'serve']],
  ])(
    '%s stopped by its pid alone (npm does not pass the signal on): the gateway shuts down too',
    async (_, args) => {
      const npm = spawn('npm', args, {
        cwd: path.resolve(import.meta.dirname, '..'),
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-npm-')),
          NODE_ENV: 'test',
          PORT: String(await freePort()),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      npm.stdout!.on('data', (d) => {
        out += d;
      });
      npm.stderr!.on('data', (d) => {
        out += d;
      });
      await waitUntil(
        () => /"msg":"gateway listening"/.test(out) || undefined,
        60_000,
        () => `npm start:\n${out}`,
      );
      const gatewayPid = Number(/"pid":(\d+)[^\n]*"msg":"gateway listening"/.exec(out)![1]);
      expect(gatewayPid).not.toBe(npm.pid);
      npm.kill('SIGTERM');
      const alive = () => {
        try {
          process.kill(gatewayPid, 0);
          return true;
        } catch {
          return false;
        }
      };
      await waitUntil(
        () => !alive() || undefined,
        20_000,
        () => `the gateway (pid ${gatewayPid}) still running after npm was stopped:\n${out}`,
      );
      // its own shutdown ran (drain, database closed), not a kill
      expect(out).toMatch(/"signal":"SIGTERM"[^\n]*"msg":"shutting down"/);
    },
  );
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = http.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}
