import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/platform/config/config.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { freshDatabase } from './pg.js';

export interface TestServer {
  url: string;
  runtime: Runtime;
  databaseUrl: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Extra settings (env names of decisions.md). */
  env?: Record<string, string>;
  /** Reuse a database (e.g. a second server process on the same data). */
  databaseUrl?: string;
  workers?: boolean;
}

/** The real app on a free port against its own fresh PostgreSQL database, in this process. */
export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const fresh = options.databaseUrl ? null : await freshDatabase();
  const databaseUrl = options.databaseUrl ?? fresh!.url;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '::',
    // One DATA_DIR per database: servers sharing a database share its generated dev secrets too.
    DATA_DIR: options.env?.DATA_DIR ?? dataDirFor(databaseUrl),
    DATABASE_URL: databaseUrl,
    // vitest.config's `silent`: an in-process server would write its access lines into the test output;
    // the spawned gateways below log at info into their captured output
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    ...TEST_LIMITS,
    ...options.env,
  };
  const runtime = await startRuntime(loadConfig(env), { http: true, workers: options.workers ?? true });
  const port = new URL(runtime.url!).port;
  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    databaseUrl,
    env,
    close: async () => {
      await runtime.close();
      await fresh?.drop();
    },
  };
}

/**
 * Tests log in and call one key far more often than a merchant: the limits are off unless a test sets them
 * (test/platform/rate-limit.test.ts does, with the defaults of decisions.md).
 */
export const TEST_LIMITS = {
  RATE_LIMIT_PER_KEY: '0',
  RATE_LIMIT_LOGIN_PER_IP: '0',
  RATE_LIMIT_WEBHOOK_TEST: '0',
};

function dataDirFor(databaseUrl: string): string {
  const dir = path.join(tmpdir(), `gw-test-${new URL(databaseUrl).pathname.slice(1)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface ChildServer {
  url: string;
  process: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const MAIN = path.resolve(import.meta.dirname, '../../dist/cli/main.js');

/** `gateway <command>` as a real child process (built dist/), e.g. to SIGKILL it or run several. */
export async function spawnGateway(args: string[], env: Record<string, string>): Promise<ChildServer> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', ...TEST_LIMITS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway ${args.join(' ')} did not start:\n${out}`)),
      30000,
    );
    const check = () => {
      const m = /"url":"(http:\/\/[^"]+)","msg":"gateway listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      } else if (args[0] === 'worker' && /"msg":"workers started"/.test(out)) {
        clearTimeout(timer);
        resolve('');
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway ${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    process: child,
    output: () => out,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}
