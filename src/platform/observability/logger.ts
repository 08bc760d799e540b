import {
  type DestinationStream,
  destination,
  type Logger,
  type LoggerOptions,
  pino,
  stdSerializers,
  transport,
} from 'pino';
import { REDACTED, redactUrl, redactUrlField, redactUrlSecrets } from './url-secrets.js';

/**
 * Secrets in URLs (url-secrets.ts), on every line of every logger: a line's `url`, a request logged as `req`, an
 * error's message and stack, and the message itself (Fastify names the URL in some of its own).
 */
const urlSecretsOptions: Pick<LoggerOptions, 'formatters' | 'serializers' | 'hooks'> = {
  formatters: { log: redactUrlField },
  serializers: {
    // a request as its method, URL and peer: its headers carry keys and cookies
    req: (req: { method?: unknown; url?: unknown; ip?: unknown; socket?: { remoteAddress?: unknown } }) => ({
      method: req.method,
      url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
      remoteAddress: req.ip ?? req.socket?.remoteAddress,
    }),
    err: (err: Error) => {
      const out = stdSerializers.err(err) as ReturnType<typeof stdSerializers.err> | string | null;
      if (typeof out === 'string') return redactUrlSecrets(out);
      if (out === null || typeof out !== 'object') return out;
      if (typeof out.message === 'string') out.message = redactUrlSecrets(out.message);
      if (typeof out.stack === 'string') out.stack = redactUrlSecrets(out.stack);
      // a parse error's request head, as bytes no search of the text would find
      if ('rawPacket' in out) out.rawPacket = REDACTED;
      return out;
    },
  },
  hooks: {
    logMethod(args, method) {
      for (let i = 0; i < args.length; i++) {
        const arg = args[i];
        if (typeof arg === 'string') (args as unknown[])[i] = redactUrlSecrets(arg);
      }
      // a line of an error and no message takes the error's message as its own: given redacted instead
      const [first] = args as unknown[];
      if (args.length === 1 && typeof first === 'object' && first !== null) {
        const err = first instanceof Error ? first : (first as { err?: unknown }).err;
        if (err instanceof Error && typeof err.message === 'string') {
          const message = redactUrlSecrets(err.message);
          if (message !== err.message) (args as unknown[]).push(message);
        }
      }
      method.apply(this, args);
    },
  },
};

/**
 * Secrets never reach the logs: key headers, cookies, CSRF tokens, passwords, TOTP codes and secrets are
 * redacted wherever they appear, and so are the secrets of URLs (url-secrets.ts). Lines are JSON (one per
 * line, for collectors); in a terminal they are printed readably by pino-pretty.
 */
export function createLogger(level: string, to?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    ...urlSecretsOptions,
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
  // written in batches of at least 4 KiB, and at the latest FLUSH_EVERY_MS after being logged: a busy server
  // makes one write per batch instead of one per line (a write per access line cost a visible share of the
  // balance read's throughput: docs/performance.md). The batch's write is synchronous: an asynchronous one lets
  // lines pile up in one string while it is under way, and sonic-boom measures that string again for every
  // line added (2 µs a line synchronous against 4–6 µs). What is left is written when the process exits; a
  // SIGKILL can lose the last FLUSH_EVERY_MS of lines.
  const out = standardOutput();
  return withAccessLogger(pino(options, out), level, out);
}

let batched: ReturnType<typeof destination> | undefined;

/** The process's standard output in batches, one for all its loggers; what is left written when it exits. */
function standardOutput(): ReturnType<typeof destination> {
  if (batched) return batched;
  const out = destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: FLUSH_EVERY_MS });
  // (pino flushes an asynchronous destination at exit, never a synchronous one)
  process.once('exit', () => {
    try {
      out.flushSync();
    } catch {
      // a closed output (EPIPE) takes nothing more
    }
  });
  batched = out;
  return out;
}

function withAccessLogger(log: Logger, level: string, out: DestinationStream): Logger {
  accessLoggers.set(log, pino({ level, formatters: { log: redactUrlField } }, out));
  return log;
}

const FLUSH_EVERY_MS = 250;

const accessLoggers = new WeakMap<Logger, Logger>();

/**
 * The logger for access lines (request-log.ts): the same output and level, without the redaction pass, for
 * lines built only of fields that cannot hold a secret but their URL, whose secrets it removes as every logger
 * does (url-secrets.ts). Any other logger (a terminal's, a test's) is its own.
 */
export function accessLoggerOf(log: Logger): Logger {
  return accessLoggers.get(log) ?? log;
}
