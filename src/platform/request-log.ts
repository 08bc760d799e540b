import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

/**
 * One access line per request ("request completed": id, method, URL, source address, status, time), written
 * when the response has gone: Fastify's default wrote two lines (on arrival and on completion), each through a
 * per-request child logger, which cost more than the balance read itself. `incoming request` stays at debug
 * level, for tracing requests that never complete. Headers are never logged (they carry keys and cookies).
 */
export function installRequestLog(app: FastifyInstance, log: Logger): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (log.isLevelEnabled('debug')) {
      log.debug({ reqId: request.id, method: request.method, url: request.url }, 'incoming request');
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (log.isLevelEnabled('info')) {
      log.info(
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

const LEVELS: Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * A request's logger (`request.log`) made only when the request logs something: most requests log nothing but
 * their access line, which the hook above writes with the request id itself. Every line it writes carries `reqId`.
 */
export function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  let child: FastifyBaseLogger | undefined;
  const real = () => {
    child ??= parent.child(bindings, options);
    return child;
  };
  const lazy: Record<string, unknown> = {
    child: (b: Bindings, o?: ChildLoggerOptions) => real().child(b, o),
    isLevelEnabled: (level: string) => (parent as unknown as Logger).isLevelEnabled(level),
    silent: () => undefined,
  };
  for (const level of LEVELS) {
    lazy[level] = (...args: unknown[]) => {
      if (!(parent as unknown as Logger).isLevelEnabled(level)) return;
      (real()[level] as (...a: unknown[]) => void)(...args);
    };
  }
  Object.defineProperty(lazy, 'level', { get: () => parent.level, enumerable: true });
  return lazy as unknown as FastifyBaseLogger;
}
