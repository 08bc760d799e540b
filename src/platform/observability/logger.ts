import { type DestinationStream, destination, type Logger, type LoggerOptions, pino, transport } from 'pino';

/**
 * Secrets never reach the logs: key headers, cookies, CSRF tokens, passwords, TOTP codes and secrets are
 * redacted wherever they appear. Lines are JSON (one per line, for collectors); in a terminal they are
 * printed readably by pino-pretty.
 */
export function createLogger(level: string, to?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    redact: {
      paths: [
        'req.headers["x-api-private-key"]',
        'req.headers.cookie',
        'req.headers.authorization',
        'req.headers["x-csrf-token"]',
        'res.headers["set-cookie"]',
        '*.password',
        '*.privateKey',
        '*.secret',
        '*.token',
        '*.csrfToken',
        '*.totpCode',
      ],
      censor: '[redacted]',
    },
  };
  if (to) return withAccessLogger(pino(options, to), level, to);
  if (process.stdout.isTTY && level !== 'silent') {
    return pino(
      options,
      transport({
        target: 'pino-pretty',
        options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
      }),
    );
  }
  // written asynchronously in batches of at least 4 KiB, and at the latest FLUSH_EVERY_MS after being logged:
  // a busy server makes one write per batch instead of one per line (a write per access line cost a visible
  // share of the balance read's throughput: docs/performance.md). pino flushes what is left when the process exits; a SIGKILL can lose the
  // last FLUSH_EVERY_MS of lines.
  const out = destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: FLUSH_EVERY_MS });
  return withAccessLogger(pino(options, out), level, out);
}

function withAccessLogger(log: Logger, level: string, out: DestinationStream): Logger {
  accessLoggers.set(log, pino({ level }, out));
  return log;
}

const FLUSH_EVERY_MS = 250;

const accessLoggers = new WeakMap<Logger, Logger>();

/**
 * The logger for access lines (request-log.ts): the same output and level, without the redaction pass, for
 * lines built only of fields that cannot hold a secret. Any other logger (a terminal's, a test's) is its own.
 */
export function accessLoggerOf(log: Logger): Logger {
  return accessLoggers.get(log) ?? log;
}
