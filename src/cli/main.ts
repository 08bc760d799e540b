import { ConfigError, loadConfig } from '../platform/config.js';
import { DataDirLock } from '../platform/datadir-lock.js';
import { openDb } from '../platform/db.js';
import { migrate } from '../platform/migrate.js';
import { checkUsage, type Execution, execute, failure, usage } from './execute.js';
import { executeRemote } from './remote.js';

async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === '--help' || first === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (!first) return print(failure(2, 'no command given (run gateway --help)', false));
  if (first !== 'serve' && first !== 'worker') {
    const bad = checkUsage(argv);
    if (bad) return print(bad);
  }
  const config = loadConfig();

  if (first === 'serve' || first === 'worker') {
    // loaded only here: operator commands start faster without the HTTP stack
    const { closeOnSignals, startRuntime } = await import('../platform/runtime.js');
    const runtime = startRuntime(config, { http: first === 'serve', workers: true });
    closeOnSignals(runtime);
    await runtime;
    return -1; // keep running
  }

  if (!config.databaseUrl) {
    const server = DataDirLock.read(config.dataDir);
    if (server?.role === 'server' && server.url && server.token) {
      return print(await executeRemote(server.url, server.token, argv));
    }
  }
  const lock = config.databaseUrl ? null : await DataDirLock.acquire(config.dataDir, 'cli');
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2 });
  try {
    if (argv[0] !== 'migrate') await migrate(db);
    return print(await execute(argv, { db, config }));
  } finally {
    await db.close();
    lock?.release();
  }
}

function print(out: Execution): number {
  process.stdout.write(out.stdout);
  process.stderr.write(out.stderr);
  return out.exitCode;
}

const argv = process.argv.slice(2);
main(argv)
  .then((code) => {
    if (code >= 0) process.exitCode = code;
  })
  .catch((err: unknown) => {
    const text = err instanceof Error ? err.message : String(err);
    const message = err instanceof ConfigError ? `invalid configuration: ${text}` : text;
    const out = failure(1, message.split('\n')[0] ?? 'failed', argv.includes('--json'));
    process.stdout.write(out.stdout);
    process.stderr.write(out.stderr);
    process.exit(1); // a half-started server may hold open handles; stdio to pipes is synchronous here
  });
