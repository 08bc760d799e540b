/**
 * The database could not be reached, or the server it reached cannot take writes any more: the statement's
 * transaction did not commit, or (a connection lost during COMMIT) its outcome is unknown. Either way the
 * request is answered 503 and its client retries (with its Idempotency-Key), never a 500.
 */
export class DatabaseUnavailable extends Error {
  readonly code = 'DATABASE_UNAVAILABLE';
  constructor(message = 'no PostgreSQL primary is reachable', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Socket errors of a connection that is gone or never came. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** SQLSTATEs of a server going away or refusing to write: class 08, shutdowns (57P01–57P03), read-only (25006). */
function lostServer(sqlState: string): boolean {
  return sqlState.startsWith('08') || /^57P0[123]$/.test(sqlState) || sqlState === '25006';
}

/** pg's own messages for a connection that ended under it, or never came (no code). */
const LOST_MESSAGES = [
  'Connection terminated',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'timeout exceeded when trying to connect',
];

/**
 * The server is there but has no room for another connection: "too many clients" or the role's or
 * database's CONNECTION LIMIT (53300), or no pooled connection came free in time. A request answers 503 with
 * Retry-After, but the server is not lost: nothing looks for another primary.
 */
export function isDatabaseBusy(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code === '53300') return true;
  return typeof message === 'string' && message.startsWith('timeout exceeded when trying to connect');
}

export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailable || isDatabaseBusy(err)) return true;
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  // (a copy of a DatabaseUnavailable: pg-boss reports a worker's error as a plain object)
  if (code === 'DATABASE_UNAVAILABLE') return true;
  if (typeof code === 'string' && (NETWORK.has(code) || (/^[0-9A-Z]{5}$/.test(code) && lostServer(code))))
    return true;
  if (typeof message === 'string' && LOST_MESSAGES.some((m) => message.startsWith(m))) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isDatabaseUnavailable(cause);
}
