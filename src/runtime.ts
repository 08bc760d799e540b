import type { DestinationStream, Logger } from 'pino';
import { buildApp } from './app.js';
import { publishMailGateway } from './mail/index.js';
import type { Config } from './platform/config/config.js';
import type { Platform } from './platform/context.js';
import { migrate } from './platform/db/migrate.js';
import { type OpenedDatabase, openDatabase } from './platform/db/open-database.js';
import { OutboxSignal } from './platform/db/outbox-signal.js';
import { healthRoute } from './platform/http/health.js';
import { createHttp } from './platform/http/server.js';
import type { Http } from './platform/http/types.js';
import { Queue } from './platform/jobs/queue.js';
import { createLogger } from './platform/observability/logger.js';
import { metricsPlugin } from './platform/observability/metrics.js';
import { installSaleRules } from './sale-rules.js';
import { checkStoredSecrets } from './stored-secrets.js';
import { readBacklog } from './webhooks/index.js';
import { startWorkers } from './workers.js';

export interface Runtime {
  platform: Platform;
  app?: Http;
  /** The address the HTTP server listens on, e.g. http://127.0.0.1:3000. */
  url?: string;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  http: boolean;
  workers: boolean;
  /** Where log lines go instead of standard output (a test reads them). */
  logTo?: DestinationStream;
  /**
   * The logger and the database already being opened (`gateway serve` starts the embedded server while this
   * module and the domains' load); otherwise both are made here.
   */
  started?: { log: Logger; database: Promise<OpenedDatabase> };
  /** Extra routes registered before listening (benchmark baselines). */
  beforeListen?: (app: Http, platform: Platform) => Promise<void>;
}

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const log = options.started?.log ?? createLogger(config.logLevel, options.logTo);
  // milliseconds since the process started at the end of each phase, and the process's CPU milliseconds by
  // then (on a busy machine the first waits for a core, the second does not), logged once listening
  const phases: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  const phase = (name: string) => {
    phases[name] = Math.round(process.uptime() * 1000);
    const used = process.cpuUsage();
    cpu[name] = Math.round((used.user + used.system) / 1000);
  };
  phase('modulesLoaded');
  let opened: OpenedDatabase | undefined;
  try {
    opened = await (options.started?.database ?? openRuntimeDatabase(config, log));
    phase('databaseOpen');
    const { db } = opened;
    const database = opened;
    await migrate(db);
    phase('migrationsChecked');
    installSaleRules();
    await checkStoredSecrets(db, config.secretsKey);
    // what an operator command seals its e-mails to, and where their links point
    await publishMailGateway(db, config.secretsKey, config.publicUrl, config.publicUrlGiven || options.http);
    const queue = await Queue.start(db, log, {
      superviseIntervalSeconds: config.jobSuperviseIntervalSeconds,
      retentionSeconds: config.jobRetentionSeconds,
    });
    phase('queueStarted');
    const platform: Platform = { config, db, reads: opened.reads, queue, log, outbox: new OutboxSignal() };
    let stopWorkers: (() => Promise<void>) | undefined;
    if (options.workers) {
      stopWorkers = await startWorkers(platform);
      phase('workersStarted');
      log.info('workers started');
    }

    let app: Http | undefined;
    let url: string | undefined;
    if (options.http) {
      app = await buildApp(platform);
      phase('appBuilt');
      await options.beforeListen?.(app, platform);
      url = await listen(app, config);
      phase('listening');
      log.info({ url }, 'gateway listening');
      log.info(
        { startupMs: phases, startupCpuMs: cpu },
        'start-up: milliseconds since the process started, and its CPU milliseconds, at the end of each phase',
      );
      // what to do next, for whoever just ran `npm start`
      const origin = url.replace('://[::]', '://localhost').replace('://0.0.0.0', '://localhost');
      log.info(
        { panel: `${origin}/`, apiReference: `${origin}/docs`, quickstart: 'docs/quickstart.md' },
        `ready: the panel at ${origin}/, the API reference at ${origin}/docs, a first payment in docs/quickstart.md`,
      );
    } else if (config.workerPort !== null) {
      // a worker process alone: its /health and its own counters (deliveries, payouts) for the scraper
      app = await createHttp(config, log);
      await app.register(metricsPlugin, { token: config.metricsToken, db, readBacklog });
      healthRoute(app, db);
      url = await listen(app, { ...config, port: config.workerPort });
      log.info({ url }, 'worker listening for /health and /metrics');
    }

    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        await app?.close(); // stops accepting, lets in-flight requests finish
        await stopWorkers?.();
        await queue.stop();
        await database.close();
      })();
      return closing;
    };
    return { platform, app, url, close };
  } catch (err) {
    await opened?.close().catch(() => undefined);
    throw err;
  }
}

/** The database of a long-running process: its start said in the log, the embedded server watched. */
function openRuntimeDatabase(config: Config, log: Logger): Promise<OpenedDatabase> {
  return openDatabase(config, {
    poolMax: config.dbPoolMax,
    log: (message) => log.info(message),
    watch: { warn: (message) => log.warn(message), error: (message) => log.error(message) },
  });
}

async function listen(app: Http, config: Config): Promise<string> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (config.host !== '::' || (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL')) throw err;
    await app.listen({ port: config.port, host: '0.0.0.0' }); // no IPv6 on this machine
  }
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('server has no TCP address');
  const host = addr.address === '::' || addr.address === '0.0.0.0' ? '127.0.0.1' : addr.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}
