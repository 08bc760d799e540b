import { type Logger, pino } from 'pino';

/** Secrets never reach the logs: key headers, cookies, passwords and webhook secrets are redacted. */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers["x-api-private-key"]',
        'req.headers.cookie',
        'req.headers.authorization',
        'req.headers["x-csrf-token"]',
        '*.password',
        '*.privateKey',
        '*.secret',
        '*.token',
      ],
      censor: '[redacted]',
    },
  });
}
