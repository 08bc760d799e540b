import { loadConfig } from '../platform/config/config.js';
import { ConfigError } from '../platform/config/parse.js';
import { migrate } from '../platform/db/migrate.js';
import { openDatabase } from '../platform/db/open-database.js';
import {
  checkUsage,
  type Execution,
  execute,
  failure,
  helpFor,
  needsSecrets,
  settlesSales,
  usage,
} from './execute.js';

async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(helpFor(first === 'help' ? argv.slice(1) : argv) ?? `${usage()}\n`);
    return 0;
  }
  if (!first) return print(failure(2, 'no command given (run gateway --help)', false));
  const bad = checkUsage(argv);
  if (bad) return print(bad);
  if (first === 'listen' || first === 'trigger' || first === 'refund') {
    // clients of a running gateway over HTTP: no configuration, no database
    const { runIntegratorCommand } = await import('./integrator/commands.js');
    return runIntegratorCommand(argv, (text) => process.stdout.write(text));
  }
  if (first === 'dev-psp') {
    const { runDevPsp } = await import('../devpsp/index.js');
    const psp = await runDevPsp(argv, loadConfig(process.env, { secrets: false }).dataDir);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void psp.close());
    return -1; // keep running
  }
  if (first === 'dev-acquirer') {
    const { runDevAcquirer } = await import('../devacquirer/index.js');
    const acquirer = await runDevAcquirer(argv, loadConfig(process.env, { secrets: false }).dataDir);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void acquirer.close());
    return -1; // keep running
  }
  // only the long-running processes sign, seal and open secrets, and the commands that say they do (a new
  // webhook's secret, an operator's invitation sealed under SECRETS_KEY); the others run without them
  const config = loadConfig(process.env, {
    secrets: first === 'serve' || first === 'worker' ? true : needsSecrets(argv) ? 'key' : false,
  });

  if (first === 'serve' || first === 'worker') {
    // The database is opened (the embedded server started: a process of its own) while the runtime's modules
    // load, rather than after them: the two take about as long as each other.
    const { createLogger } = await import('../platform/observability/logger.js');
    const { closeOnSignals } = await import('./signals.js');
    const log = createLogger(config.logLevel);
    const database = openDatabase(config, {
      log: (message) => log.info(message),
      watch: { warn: (message) => log.warn(message), error: (message) => log.error(message) },
    });
    database.catch(() => undefined); // its failure is the runtime's to report, once it awaits it
    // loaded only here: operator commands start faster without the HTTP stack; `serve --no-worker` and `worker`
    // let the API and the background workers scale apart on one database
    const runtime = import('../runtime.js').then(({ startRuntime }) =>
      startRuntime(config, {
        http: first === 'serve',
        workers: !argv.includes('--no-worker'),
        started: { log, database },
      }),
    );
    // before the runtime's modules have loaded: a signal meanwhile (the database waited for) stops the start
    closeOnSignals(runtime, database);
    await runtime;
    return -1; // keep running
  }

  // Operator commands print only their result (the embedded database starts quietly when it is not running).
  const database = await openDatabase(config, { poolMax: 2, log: () => undefined });
  try {
    if (argv[0] !== 'migrate') await migrate(database.db);
    // as `serve` does: a command that credits sales (reconcile, boletos retorno) applies their rules too
    if (settlesSales(argv)) (await import('../sale-rules.js')).installSaleRules();
    // one sealing a secret with another key than the stored ones' would leave no key that opens them all
    if (needsSecrets(argv)) {
      await (await import('../stored-secrets.js')).checkStoredSecrets(database.db, config.secretsKey);
    }
    return print(await execute(argv, { db: database.db, config }));
  } finally {
    await database.close();
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
