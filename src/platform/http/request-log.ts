import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

/**
 * One access line per request ("request completed": id, method, URL, source address, status, time), written
 * when the response has gone: Fastify's default wrote two lines (on arrival and on completion), each through a
 * per-request child logger, which cost more than the balance read itself. `incoming request` stays at debug
 * level, for tracing requests that never complete. Headers are never logged (they carry keys and cookies), so
 * `access` (the same destination, without the redaction pass that every other line goes through) writes it.
 */
export function installRequestLog(app: FastifyInstance, log: Logger, access: Logger): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (log.isLevelEnabled('debug')) {
      log.debug({ reqId: request.id, method: request.method, url: request.url }, 'incoming request');
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (access.isLevelEnabled('info')) {
      access.info(
        {
          reqId: request.id,
          method: request.method,
          url: request.url,
          remoteAddress: request.ip,
          statusCode: reply.statusCode,
          responseTime: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request completed',
      );
    }
    done();
  });
}

/**
 * A request's logger (`request.log`), whose pino child is made only when the request logs something: most
 * requests log nothing but their access line. Every line it writes carries `reqId`.
 */
class LazyRequestLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.parent.level;
  }

  isLevelEnabled(level: string): boolean {
    return this.parent.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.real().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    if (!this.parent.isLevelEnabled(level)) return;
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }

  private real(): Logger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }
}

export function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(
    parent as unknown as Logger,
    bindings,
    options,
  ) as unknown as FastifyBaseLogger;
}
