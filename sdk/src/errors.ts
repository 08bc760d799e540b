/** A non-2xx answer of the gateway, whichever of its error body shapes it came in. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The error code: `error.code`, `code`, `errorType` or `error`, whichever the body's shape has. */
    readonly code: string,
    message: string,
    /** The gateway's X-Request-Id of the answer (quote it to support). */
    readonly requestId: string | null,
    /** The answer's body as parsed (its text when it was not JSON). */
    readonly body: unknown,
  ) {
    super(message);
  }
}

/**
 * No answer from the gateway after every retry (refused, reset, DNS, timed out): the request may or may not have
 * been done; repeat it with the same idempotency key. Not a GatewayError, which is an answer.
 */
export class GatewayConnectionError extends Error {
  override readonly name = 'GatewayConnectionError';
}

/** A webhook whose signature, timestamp or event id does not verify: answer 400 and do nothing with it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** The code and message of any of the gateway's error body shapes. */
export function describeError(status: number, body: unknown): { code: string; message: string } {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const nested =
    typeof b.error === 'object' && b.error !== null ? (b.error as Record<string, unknown>) : null;
  const code =
    (nested && typeof nested.code === 'string' && nested.code) ||
    (typeof b.code === 'string' && b.code) ||
    (typeof b.errorType === 'string' && b.errorType) ||
    (typeof b.error === 'string' && b.error) ||
    `HTTP_${status}`;
  const message =
    (nested && typeof nested.message === 'string' && nested.message) ||
    (typeof b.message === 'string' && b.message) ||
    (typeof body === 'string' && body.slice(0, 200)) ||
    `The gateway answered ${status}`;
  return { code, message };
}
