import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/platform/config/config.js';
import { type Runtime, startRuntime } from '../../src/runtime.js';
import { LogWatch } from './log-watch.js';
import { freshDatabase } from './pg.js';

export interface TestServer {
  url: string;
  runtime: Runtime;
  databaseUrl: string;
  env: Record<string, string>;
  /** Its log: declare the faults the test provokes (`logs.expect(...)`); any other fails the test. */
  logs: LogWatch;
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
    // its lines go to its LogWatch, not the test output: warnings and errors are enough to find faults
    LOG_LEVEL: 'warn',
    ...TEST_LIMITS,
    ...options.env,
  };
  const logs = new LogWatch('in-process gateway');
  let runtime: Runtime;
  try {
    runtime = await startRuntime(loadConfig(env), {
      http: true,
      workers: options.workers ?? true,
      logTo: logs,
    });
  } catch (err) {
    logs.end();
    throw err;
  }
  const port = new URL(runtime.url!).port;
  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    databaseUrl,
    env,
    logs,
    close: async () => {
      try {
        await runtime.close();
      } finally {
        await fresh?.drop();
      }
      logs.end();
    },
  };
}

/**
 * Tests log in and call one key far more often than a merchant: the limits are off unless a test sets them
 * (test/platform/rate-limit.test.ts does, with the defaults of decisions.md); a gateway's pool is smaller.
 */
export const TEST_LIMITS = {
  RATE_LIMIT_PER_KEY: '0',
  RATE_LIMIT_LOGIN_PER_IP: '0',
  RATE_LIMIT_WEBHOOK_TEST: '0',
  RATE_LIMIT_CHECKOUT_PER_IP: '0',
  RATE_LIMIT_PUBLIC_KEY: '0',
  RATE_LIMIT_PUBLIC_KEY_PER_IP: '0',
  RATE_LIMIT_BOLETO_PDF_PER_IP: '0',
  RISK_CARD_ATTEMPTS_PER_IP: '0',
  RISK_CARD_ATTEMPTS_PER_CARD: '0',
  RISK_REFUSAL_RATIO: '0',
  // sandbox payouts stay PROCESSING until a test decides them (the tests of their completion set it small)
  SANDBOX_CASHOUT_DELAY_MS: '86400000',
  // two test files run at once, each with a few gateways, on one local PostgreSQL of 100 connections: a
  // burst's connections are given back within seconds rather than held for half a minute (the job queue's
  // 2-second polls keep one warm)
  DB_POOL_MAX: '10',
  DB_POOL_IDLE_MS: '5000',
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
  /** Its log: declare the faults the test provokes (`logs.expect(...)`); any other fails the test. */
  logs: LogWatch;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const childLogLevel = (env: Record<string, string>) =>
  env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace' ? env.LOG_LEVEL : 'info';

const MAIN = path.resolve(import.meta.dirname, '../../dist/bundle/main.mjs');

/** `gateway <command>` as a real child process (built dist/), e.g. to SIGKILL it or run several. */
export async function spawnGateway(
  args: string[],
  env: Record<string, string>,
  /** How long its start may take (its migrations included): longer against a cluster that replicates each commit. */
  startTimeoutMs = 30_000,
): Promise<ChildServer> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    // at info at least: its start is read from its log (a server's env, passed on, says warn)
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      ...TEST_LIMITS,
      ...env,
      LOG_LEVEL: childLogLevel(env),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const logs = new LogWatch(`gateway ${args.join(' ')} (pid ${child.pid})`);
  child.stdout!.on('data', (d) => {
    out += d;
    logs.write(d);
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway ${args.join(' ')} did not start:\n${out}`)),
      startTimeoutMs,
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
  }).catch((err) => {
    child.kill('SIGKILL'); // one that did not start in time is not left running
    logs.end();
    throw err;
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    process: child,
    output: () => out,
    logs,
    stop: async (signal = 'SIGTERM') => {
      if (exited()) {
        logs.end();
        return child.exitCode;
      }
      child.kill(signal);
      const [code] = await once(child, 'exit');
      logs.end();
      return code as number | null;
    },
  };
}
