import { AppError, type ErrorCode } from '../errors/app-error.js';

/**
 * What an AppError (platform/errors) becomes on the wire: its status, headers and body. The HTTP error handler
 * (server.ts; framework-errors.ts before a route is matched) renders it in the family the route declares.
 * The body families (the contract's letters):
 *   envelope     (A) {success:false, error:{code, message}}   generic auth errors, panel routes
 *   ip access    (B) {message, code}                            IP allow-list errors, always
 *   business rule(C) {message, errorType}                       cashout business errors, always
 *   transaction  (D) {message, error}                           cashout 400/401/500, all of /api/transactions/{id}
 *   balance      (E) {error, message}                           balance 401/500
 * A route chooses one of the three families a route can have; B and C follow from the code.
 */
export type ErrorShape = 'envelope' | 'transaction' | 'balance';
/** A body an HttpError may force: a route family, or the business-rule body (a key's scope refused on the cashout). */
export type ForcedShape = ErrorShape | 'business-rule';

export const ERROR_STATUS: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  GONE: 410,
  VALIDATION_ERROR: 400,
  CONFLICT: 409,
  INVALID_STATUS: 409,
  TOO_MANY_KEYS: 409,
  EMAIL_TAKEN: 409,
  LAST_OWNER: 409,
  NOT_AWAITING_APPROVAL: 409,
  DISPUTE_CLOSED: 409,
  UNSUPPORTED_FILE_TYPE: 415,
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
  // an account not yet approved, or suspended, may not open charges or cashouts (shape D; C on the cashout)
  ACCOUNT_NOT_ACTIVE: 403,
  ACCOUNT_SUSPENDED: 403,
  INVALID_CREDENTIALS: 401,
  CARD_PAYMENTS_PAUSED: 403,
  FEE_PLAN_REQUIRED: 409,
};

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

/**
 * An error raised by the HTTP layer itself (a hook, a route) that always takes one body family, whatever its
 * code's and the route's (a read-only key refused: the envelope), or carries headers of its own.
 */
export class HttpError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly shape?: ForcedShape,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }
}

export const statusOf = (err: AppError): number => ERROR_STATUS[err.code];

/** The headers an error's answer carries: its own (HttpError), and what its detail says (a limit, a replay). */
export function headersOf(err: AppError): Record<string, string> {
  const headers: Record<string, string> = err instanceof HttpError ? { ...err.headers } : {};
  const limit = err.detail.limit;
  if (limit) {
    const after = String(Math.max(1, Math.ceil(limit.retryAfterSeconds)));
    Object.assign(headers, {
      'retry-after': after,
      'ratelimit-limit': String(limit.max),
      'ratelimit-remaining': '0',
      'ratelimit-reset': after,
    });
  }
  if (err.detail.replayed) headers['idempotent-replayed'] = 'true';
  // the first request with the key is still being answered: ask again in a moment, as its message says
  if (err.code === 'IDEMPOTENCY_KEY_IN_USE') headers['retry-after'] ??= '1';
  return headers;
}

export type ErrorBody =
  | { success: false; error: { code: string; message: string } }
  | { message: string; code: string }
  | { message: string; errorType: string }
  | { message: string; error: string }
  | { error: string; message: string };

/**
 * The one place error bodies are built. `ruleInRouteFamily`: the route declares this status in its own family
 * only (a refund's INSUFFICIENT_BALANCE is in the transaction body), so a business-rule code takes that family.
 */
export function renderError(err: AppError, shape: ErrorShape, ruleInRouteFamily = false): ErrorBody {
  const forced = err instanceof HttpError ? err.shape : undefined;
  if (forced === 'business-rule') return { message: err.message, errorType: err.code };
  if (!forced && SHAPE_B.has(err.code)) return { message: err.message, code: err.code };
  if (!forced && !ruleInRouteFamily && SHAPE_C.has(err.code))
    return { message: err.message, errorType: err.code };
  switch (forced ?? shape) {
    case 'envelope':
      return { success: false, error: { code: err.code, message: err.message } };
    case 'transaction':
      return { message: err.message, error: err.code };
    case 'balance':
      return { error: err.code, message: err.message };
  }
}

/**
 * Whether a route's answer at `status` declares body families and the business-rule one is not among them
 * (the same reading the OpenAPI document makes of it).
 */
export function declaresRuleInOwnFamily(schema: unknown, status: number): boolean {
  const declared = (schema as { response?: Record<string, unknown> } | undefined)?.response?.[status] as
    | { anyOf?: { description?: string }[]; description?: string }
    | undefined;
  if (!declared) return false;
  const members = Array.isArray(declared.anyOf) ? declared.anyOf : [declared];
  return !members.some((m) => m.description === 'Error shape C');
}
