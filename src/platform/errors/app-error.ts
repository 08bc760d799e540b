/**
 * Errors are values with a closed set of codes. Domain code throws AppError with a code and a message that
 * stands on its own; what a code becomes on the wire (its status, its body family, its headers) is decided by
 * the HTTP layer (platform/http/errors.ts), and the CLI turns it into an exit status.
 */
export const ERROR_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'GONE',
  'VALIDATION_ERROR',
  'CONFLICT',
  'INVALID_STATUS',
  'TOO_MANY_KEYS',
  'EMAIL_TAKEN',
  'LAST_OWNER',
  'NOT_AWAITING_APPROVAL',
  'DISPUTE_CLOSED',
  'UNSUPPORTED_FILE_TYPE',
  'INVALID_TOKEN',
  'PAYLOAD_TOO_LARGE',
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'TOTP_REQUIRED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'PROCESSOR_ERROR',
  'PROCESSOR_UNAVAILABLE',
  'SERVICE_UNAVAILABLE',
  'IP_NOT_ALLOWED',
  'INVALID_IP',
  'TOO_MANY_IPS',
  'INSUFFICIENT_BALANCE',
  'MINIMUM_VALUE',
  'MAXIMUM_VALUE',
  'API_WITHDRAWAL_DISABLED_GLOBALLY',
  'TRANSFER_NOT_ALLOWED',
  'GENERAL_ERROR',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'ACCOUNT_NOT_ACTIVE',
  'ACCOUNT_SUSPENDED',
  'INVALID_CREDENTIALS',
  'CARD_PAYMENTS_PAUSED',
  'FEE_PLAN_REQUIRED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** What an error may say beyond its code and message. */
export interface ErrorDetail {
  /** A limit was reached: how many it allows, and when the caller may try again. */
  limit?: { max: number; retryAfterSeconds: number };
  /** The stored outcome of an earlier request with the same Idempotency-Key, answered again. */
  replayed?: boolean;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly detail: ErrorDetail = {},
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'Missing or invalid API keys') =>
  new AppError('UNAUTHORIZED', message);
export const notFound = (message = 'Not found') => new AppError('NOT_FOUND', message);
export const validation = (message: string) => new AppError('VALIDATION_ERROR', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);

export const keyReused = () =>
  new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was already used with a different request body',
  );
export const inUse = () =>
  new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed');
