import type { ErrorCode } from '../errors/app-error.js';
import { ERROR_STATUS } from './errors.js';

/** What each error code means, what the client should do, and an example message (docs/errors.md, OpenAPI). */
export const ERROR_MEANINGS: Record<ErrorCode, { meaning: string; action: string; example: string }> = {
  VALIDATION_ERROR: {
    meaning:
      'The request is malformed: a field is missing, of the wrong type or out of range, or the body is not JSON.',
    action: 'Fix the request as the message says; sending it again unchanged fails the same way.',
    example: 'Invalid body/amount: must be number',
  },
  UNAUTHORIZED: {
    meaning:
      'No valid credentials: the API key pair is missing, wrong or revoked, or the panel session ended.',
    action: 'Send both X-Api-Public-Key and X-Api-Private-Key of an active key pair, or log in again.',
    example: 'Missing or invalid API keys',
  },
  TOTP_REQUIRED: {
    meaning: 'The password was right and the user has two-factor authentication on: the code is missing.',
    action: 'Send the login again with `totpCode`, the 6-digit code of the authenticator app.',
    example: 'Enter the 6-digit code of your authenticator app',
  },
  FORBIDDEN: {
    meaning:
      'The credentials are valid but may not do this: a key whose scope does not cover the route, a role below the one required, a missing or wrong CSRF token, or another account’s object.',
    action:
      'Use a full-access key or a user with the required role; panel changes need the X-CSRF-Token of the session.',
    example: 'This API key’s scope is "read"; POST /api/transactions needs a "charges" key',
  },
  NOT_FOUND: {
    meaning: 'No such object for this account (or no such route).',
    action: 'Check the id; ids of another account’s objects are not found either.',
    example: 'Sale not found',
  },
  GONE: {
    meaning:
      'The payment link or checkout session exists but takes no more payments: expired, used up, turned off or already paid.',
    action: 'Ask the merchant for a new link or checkout.',
    example: 'This payment link has expired',
  },
  CONFLICT: {
    meaning:
      'The object is not in a state that allows this (a sale not PAGO cannot be refunded, a cashout not awaiting approval cannot be approved).',
    action: 'Read the object again and act on its current state.',
    example: 'a sale in status PENDENTE cannot be refunded',
  },
  INVALID_STATUS: {
    meaning:
      'Only a PENDENTE PIX or BOLETO sale can be cancelled; this one is in another status (paid, cancelled, …).',
    action: 'Read the sale: a paid one is refunded instead (POST /api/transactions/{id}/refund).',
    example: 'a sale in status PAGO cannot be cancelled (only PENDENTE)',
  },
  TOO_MANY_KEYS: {
    meaning: 'The account already has the most API key pairs it may have.',
    action: 'Revoke a key pair you no longer use, then create the new one.',
    example: 'An account can have at most 20 active API key pairs; revoke one first',
  },
  EMAIL_TAKEN: {
    meaning: 'The e-mail address is already a user of this account, active or invited.',
    action: 'Use another address, or withdraw the pending invitation first.',
    example: 'ana@loja.com.br is already a user or an invitee of this account',
  },
  LAST_OWNER: {
    meaning: 'The change would leave the account with no owner.',
    action: 'Make another user owner first.',
    example: 'The account must keep an owner: make someone else an owner first',
  },
  NOT_AWAITING_APPROVAL: {
    meaning: 'The cashout is not waiting for approval any more (approved, rejected or expired meanwhile).',
    action: 'Read the cashout again; nothing was changed.',
    example: 'Withdrawal 11 is not awaiting approval (approval expired, status CANCELLED)',
  },
  DISPUTE_CLOSED: {
    meaning:
      'The dispute takes no more answers: it was already answered, accepted or decided, or its respondBy has passed.',
    action: 'Read the dispute again (GET /api/disputes/{id}): its status says where it stands.',
    example: 'This dispute is under_review: it takes no more evidence',
  },
  UNSUPPORTED_FILE_TYPE: {
    meaning:
      'A file is not a PDF, PNG or JPEG by its content (the name and the declared type are not trusted).',
    action: 'Send the evidence as PDF, PNG or JPEG files.',
    example: 'recibo.docx is not a PDF, PNG or JPEG file',
  },
  INVALID_TOKEN: {
    meaning: 'An invitation, password reset or e-mail link token that is unknown, used or expired.',
    action: 'Ask for a new invitation or reset link.',
    example: 'This link is invalid, was already used or has expired; ask for a new one',
  },
  PAYLOAD_TOO_LARGE: {
    meaning: 'The request body is larger than the route accepts (1 MiB for JSON).',
    action: 'Send a smaller body.',
    example: 'Request body larger than 1 MiB',
  },
  HEADERS_TOO_LARGE: {
    meaning: 'The request headers are larger than the server accepts.',
    action: 'Send fewer or shorter headers (cookies included).',
    example: 'Request headers too large',
  },
  REQUEST_TIMEOUT: {
    meaning: 'The request was not received in time (a client too slow to send it).',
    action: 'Send the request again; check the network between you and the gateway.',
    example: 'Request not received in time',
  },
  RATE_LIMITED: {
    meaning: 'Too many requests for a limit of the key, the account, the address or the user.',
    action: 'Wait the seconds given by Retry-After (RateLimit-* headers say the limit), then retry.',
    example: 'Too many requests: retry in 1 s',
  },
  INTERNAL_ERROR: {
    meaning: 'The gateway failed. Nothing partial was written.',
    action:
      'Retry later (with the same Idempotency-Key where the route takes one); report the X-Request-Id if it persists.',
    example: 'Internal server error',
  },
  PROCESSOR_ERROR: {
    meaning: 'The payment processor (PSP or acquirer) failed or did not answer; no sale was left behind.',
    action: 'Retry later, with the same Idempotency-Key.',
    example: 'The payment processor failed to open the charge: PUT /cob answered 503',
  },
  PROCESSOR_UNAVAILABLE: {
    meaning: 'No payment processor is configured for this payment method on this gateway.',
    action: 'Ask the gateway’s operator; retrying does not help until one is configured.',
    example: 'No payment processor is configured to open PIX charges',
  },
  SERVICE_UNAVAILABLE: {
    meaning: 'The gateway is busy or its database is unavailable (a failover under way).',
    action:
      'Retry after the seconds given by Retry-After, with the same Idempotency-Key where the route takes one.',
    example: 'The database is unavailable: retry shortly',
  },
  IP_NOT_ALLOWED: {
    meaning: 'The API key has an IP allow-list and the request came from an address not in it.',
    action: 'Call from an allowed address, or add this one to the key’s allow-list in the panel.',
    example: 'IP address 203.0.113.7 is not allowed for this API key',
  },
  INVALID_IP: {
    meaning: 'An address given for an allow-list is not a valid IPv4 or IPv6 address or CIDR range.',
    action: 'Fix the address.',
    example: 'Invalid IP address: "10.0.0.300"',
  },
  TOO_MANY_IPS: {
    meaning: 'The allow-list would hold more addresses than a key may have.',
    action: 'Use CIDR ranges, or remove addresses no longer used.',
    example: 'At most 20 IP addresses are allowed, got 21 after removing duplicates',
  },
  INSUFFICIENT_BALANCE: {
    meaning:
      'The available balance does not cover the amount plus fees (or the money of a refund was already withdrawn).',
    action: 'Check GET /api/public/balance; wait for more sales to settle.',
    example: 'Insufficient available balance',
  },
  MINIMUM_VALUE: {
    meaning: 'The amount is below the minimum of a cashout.',
    action: 'Send at least the minimum the message gives.',
    example: 'The minimum cashout amount is 100.00',
  },
  MAXIMUM_VALUE: {
    meaning: 'The amount is above the maximum of a cashout, or above what is left of a sale to refund.',
    action: 'Send at most the maximum the message gives (a cashout: in several if needed).',
    example: 'The maximum cashout amount is 100000.00',
  },
  API_WITHDRAWAL_DISABLED_GLOBALLY: {
    meaning: 'Cashouts through the API are turned off for this account (or for the whole gateway).',
    action: 'Turn them on in the panel (Settings), or ask the operator.',
    example: 'API withdrawals are disabled',
  },
  TRANSFER_NOT_ALLOWED: {
    meaning: 'Transfers are turned off for this account.',
    action: 'Ask the gateway’s operator to turn transfers on for the account.',
    example: 'Transfers are not allowed for this user',
  },
  GENERAL_ERROR: {
    meaning: 'A valid request that the account’s fees make impossible (the fees take the whole amount).',
    action: 'Send a larger amount.',
    example: 'The amount does not cover the cashout fees',
  },
  IDEMPOTENCY_KEY_REUSED: {
    meaning: 'The Idempotency-Key was used before with a different request.',
    action: 'Use a new key for a new request; resend the original request unchanged to get its answer.',
    example: 'This Idempotency-Key was already used with a different request body',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    meaning: 'A request with this Idempotency-Key is still being processed.',
    action:
      'Wait a moment (the answer’s Retry-After, 1 second) and send it again with the same key: you get the first request’s answer.',
    example: 'A request with this Idempotency-Key is still being processed',
  },
  ACCOUNT_NOT_ACTIVE: {
    meaning:
      'The account is waiting for review (a new sign-up): it may log in, use the sandbox and send its documents, but not charge or cash out yet.',
    action:
      "Send the onboarding documents (the panel's Cadastro page, or GET /api/onboarding with its session, says what is missing) and wait for approval.",
    example: 'This account is waiting for review: charges and cashouts open once it is approved',
  },
  ACCOUNT_SUSPENDED: {
    meaning:
      'The account is suspended by the gateway: reads, refunds and dispute answers work; charges, cashouts and anticipations do not, and its withdrawals not yet sent wait.',
    action: 'Talk to the gateway’s support team.',
    example: 'This account is suspended: charges and cashouts are refused',
  },
  CARD_PAYMENTS_PAUSED: {
    meaning:
      'Too many of this account’s card payments were refused within an hour (card testing looks like this): its card payments are paused until the gateway’s risk team resumes them.',
    action: 'Talk to the gateway’s support team; Pix and boleto go on.',
    example:
      'Card payments of this account are paused for review: too many were refused within an hour; the gateway’s risk team resumes them',
  },
  FEE_PLAN_REQUIRED: {
    meaning:
      'The account cannot be approved without prices someone chose: it has no fee plan and FEE_PLAN_DEFAULT names none.',
    action: 'Assign a fee plan to the account (POST /api/ops/accounts/{id}/fee-plan), then approve it.',
    example:
      'The account has no fee plan and FEE_PLAN_DEFAULT names none: assign one (POST /api/ops/accounts/{id}/fee-plan) before approving it',
  },
  INVALID_CREDENTIALS: {
    meaning: 'The operator’s e-mail, password or two-factor code is wrong.',
    action: 'Check them and try again; repeated failures lock the login for a while.',
    example: 'Invalid e-mail, password or code',
  },
};

/**
 * Who may call a route, from its path (and a panel route's `permission: 'public'`): what decides its documented
 * security and the codes every route of the kind can answer. test/auth/documented-security.test.ts walks every
 * route with each kind of credential, so this and the routes' own hooks cannot drift apart.
 */
export type RouteAccess = 'api-key' | 'session' | 'operator' | 'metrics' | 'open';

const API_KEY_PREFIXES = [
  '/api/public/',
  '/api/transactions',
  '/api/sandbox/',
  '/api/payment-links',
  '/api/checkout/',
  '/api/cards/',
  '/api/receivables',
  '/api/disputes',
  '/api/fees',
  '/api/anticipations',
  '/api/recipients',
];
/**
 * The payer's side of payment links, checkout sessions and billing pages, and a boleto's PDF by its unguessable
 * token: no credentials, limited per address.
 */
const PAYER_PREFIXES = ['/api/public/pay/', '/api/public/checkout/', '/api/public/billing/', '/api/boletos/'];
/** The console's sign-in steps take no credentials (an invitation's token, a password and a TOTP code). */
const OPERATOR_SIGN_INS = [
  '/api/ops/auth/login',
  '/api/ops/auth/accept-invitation',
  '/api/ops/auth/totp/enable',
];

/** Session routes an API key pair opens too: the permanent webhooks (a full key every one, a read key the GETs). */
export const keyOpensSessionRoute = (url: string): boolean => url.startsWith('/api/webhook');

/** `permission` is a panel route's (route-permissions.hook.ts): `public` ones (sign-in, sign-up, resets) are open. */
export function accessOf(url: string, permission?: string): RouteAccess {
  if (permission === 'public' || PAYER_PREFIXES.some((p) => url.startsWith(p))) return 'open';
  if (API_KEY_PREFIXES.some((p) => url.startsWith(p))) return 'api-key';
  if (url === '/metrics') return 'metrics';
  if (url.startsWith('/api/ops/')) return OPERATOR_SIGN_INS.includes(url) ? 'open' : 'operator';
  if (url.startsWith('/api/providers/') || !url.startsWith('/api/')) return 'open';
  return 'session';
}

/** The codes every route of a kind can answer, whatever it does. */
function commonCodes(url: string, method: string, permission?: string): ErrorCode[] {
  const codes: ErrorCode[] = ['VALIDATION_ERROR', 'INTERNAL_ERROR'];
  if (method !== 'GET' && method !== 'HEAD') codes.push('PAYLOAD_TOO_LARGE');
  if (url.startsWith('/api/')) codes.push('SERVICE_UNAVAILABLE');
  switch (accessOf(url, permission)) {
    case 'api-key':
      codes.push('UNAUTHORIZED', 'IP_NOT_ALLOWED', 'RATE_LIMITED');
      // a read-only key opens GET routes only; a GET that refuses another account's object lists it itself
      if (method !== 'GET' && method !== 'HEAD') codes.push('FORBIDDEN');
      break;
    case 'session':
      codes.push('UNAUTHORIZED', 'FORBIDDEN');
      // the webhook routes take an API key pair too
      if (keyOpensSessionRoute(url)) codes.push('IP_NOT_ALLOWED', 'RATE_LIMITED');
      break;
    case 'operator':
      codes.push('UNAUTHORIZED', 'FORBIDDEN');
      break;
    case 'metrics':
      codes.push('UNAUTHORIZED');
      break;
    case 'open':
      break;
  }
  return codes;
}

/** A route's catalogue: every code it can answer (its own `errors` and those of its kind), by status. */
export function errorCatalogue(
  url: string,
  method: string,
  own: readonly ErrorCode[] = [],
  permission?: string,
): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...commonCodes(url, method, permission), ...own])) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const codes of byStatus.values()) codes.sort();
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** Each route's codes, built once: a route's catalogue never changes while the process runs. */
const routeCodes = new Map<string, ReadonlySet<ErrorCode>>();

/** Whether a route lists `code` among those it answers (asked of every error the gateway answers). */
export function listsCode(
  url: string,
  method: string,
  own: readonly ErrorCode[] | undefined,
  code: ErrorCode,
  permission?: string,
) {
  const key = `${method} ${url} ${permission ?? ''} ${own?.join(',') ?? ''}`;
  let codes = routeCodes.get(key);
  if (!codes) {
    codes = new Set([...errorCatalogue(url, method, own, permission).values()].flat());
    routeCodes.set(key, codes);
  }
  return codes.has(code);
}
