import { ConfigError, loadConfig } from '../platform/config.js';
import { DataDirLock } from '../platform/datadir-lock.js';
import { openDb } from '../platform/db.js';
import { createLogger } from '../platform/logger.js';
import { migrate } from '../platform/migrate.js';
import { Queue } from '../platform/queue.js';
import { closeOnSignals, startRuntime } from '../platform/runtime.js';
import { execute, findCommand, usage } from './execute.js';
import { executeRemote } from './remote.js';

async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (!first || first === '--help' || first === 'help') {
    process.stdout.write(`${usage()}\n`);
    return first ? 0 : 2;
  }
  if (first !== 'serve' && first !== 'worker' && !findCommand(argv)) {
    process.stderr.write(`unknown command: ${argv.join(' ')}\n${usage()}\n`);
    return 2;
  }
  const config = loadConfig();

  if (first === 'serve' || first === 'worker') {
    const runtime = await startRuntime(config, { http: first === 'serve', workers: true });
    closeOnSignals(runtime);
    return -1; // keep running
  }

  if (!config.databaseUrl) {
    const server = DataDirLock.read(config.dataDir);
    if (server?.role === 'server' && server.url && server.token) {
      const out = await executeRemote(server.url, server.token, argv);
      process.stdout.write(out.stdout);
      process.stderr.write(out.stderr);
      return out.exitCode;
    }
  }
  const lock = config.databaseUrl ? null : await DataDirLock.acquire(config.dataDir, 'cli');
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2 });
  try {
    if (argv[0] !== 'migrate') await migrate(db);
    const queue = await Queue.start(db, createLogger('warn'));
    const out = await execute(argv, { db, config, queue }).finally(() => queue.stop());
    process.stdout.write(out.stdout);
    process.stderr.write(out.stderr);
    return out.exitCode;
  } finally {
    await db.close();
    lock?.release();
  }
}

main(process.argv.slice(2))
  .then((code) => {
    if (code >= 0) process.exitCode = code;
  })
  .catch((err: unknown) => {
    const message =
      err instanceof ConfigError ? `configuration error: ${err.message}` : `error: ${(err as Error).message}`;
    process.stderr.write(`${message.split('\n')[0]}\n`);
    process.exitCode = 1;
  });
