/**
 * Errors are values with a closed set of codes. Domain code throws AppError; the HTTP error handler
 * (server.ts; framework-errors.ts before a route is matched) renders it in the family the route declares.
 * The body families (the contract's letters, spec "Errors"):
 *   envelope     (A) {success:false, error:{code, message}}   generic auth errors, panel routes
 *   ip access    (B) {message, code}                            IP allow-list errors, always
 *   business rule(C) {message, errorType}                       cashout business errors, always
 *   transaction  (D) {message, error}                           cashout 400/401/500, all of /api/transactions/{id}
 *   balance      (E) {error, message}                           balance 401/500
 * A route chooses one of the three families a route can have; B and C follow from the code.
 */
export type ErrorShape = 'envelope' | 'transaction' | 'balance';

export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  GONE: 410,
  VALIDATION_ERROR: 400,
  CONFLICT: 409,
  TOO_MANY_KEYS: 409,
  EMAIL_TAKEN: 409,
  LAST_OWNER: 409,
  NOT_AWAITING_APPROVAL: 409,
  INVALID_TOKEN: 400,
  PAYLOAD_TOO_LARGE: 413,
  HEADERS_TOO_LARGE: 431,
  REQUEST_TIMEOUT: 408,
  TOTP_REQUIRED: 401,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  PROCESSOR_ERROR: 502,
  PROCESSOR_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  // the IP-access body, whatever the route
  IP_NOT_ALLOWED: 403,
  INVALID_IP: 400,
  TOO_MANY_IPS: 400,
  // the business-rule body, whatever the route
  INSUFFICIENT_BALANCE: 422,
  MINIMUM_VALUE: 422,
  MAXIMUM_VALUE: 422,
  API_WITHDRAWAL_DISABLED_GLOBALLY: 403,
  TRANSFER_NOT_ALLOWED: 403,
  // the fees take the whole amount: a valid request the account's fees make impossible (the business-rule body's 422, as the
  // API contract gives every 400 of the cashout the transaction body)
  GENERAL_ERROR: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const SHAPE_B: ReadonlySet<ErrorCode> = new Set(['IP_NOT_ALLOWED', 'INVALID_IP', 'TOO_MANY_IPS']);
const SHAPE_C: ReadonlySet<ErrorCode> = new Set([
  'INSUFFICIENT_BALANCE',
  'MINIMUM_VALUE',
  'MAXIMUM_VALUE',
  'API_WITHDRAWAL_DISABLED_GLOBALLY',
  'TRANSFER_NOT_ALLOWED',
  'GENERAL_ERROR',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
]);

/** A code of the IP-access body (IP allow-list), whatever the route. */
export const isIpAccessCode = (code: ErrorCode) => SHAPE_B.has(code);
/** A code of the business-rule body (cashout business rules), unless an error forces another shape. */
export const isBusinessRuleCode = (code: ErrorCode) => SHAPE_C.has(code);

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /**
     * A shape this error always takes, whatever its code's and the route's (a read-only key refused: the envelope;
     * a reused Idempotency-Key of POST /api/transactions, whose errors are all in the transaction body).
     */
    readonly shape?: ErrorShape,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export type ErrorBody =
  | { success: false; error: { code: string; message: string } }
  | { message: string; code: string }
  | { message: string; errorType: string }
  | { message: string; error: string }
  | { error: string; message: string };

/** The one place error bodies are built. */
export function renderError(err: AppError, shape: ErrorShape): ErrorBody {
  if (!err.shape && SHAPE_B.has(err.code)) return { message: err.message, code: err.code };
  if (!err.shape && SHAPE_C.has(err.code)) return { message: err.message, errorType: err.code };
  switch (err.shape ?? shape) {
    case 'envelope':
      return { success: false, error: { code: err.code, message: err.message } };
    case 'transaction':
      return { message: err.message, error: err.code };
    case 'balance':
      return { error: err.code, message: err.message };
  }
}

export const unauthorized = (message = 'Missing or invalid API keys') =>
  new AppError('UNAUTHORIZED', message);
export const notFound = (message = 'Not found') => new AppError('NOT_FOUND', message);
export const validation = (message: string) => new AppError('VALIDATION_ERROR', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
