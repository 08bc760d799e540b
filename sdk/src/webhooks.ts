import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { webhooks } from './openapi.js';

/** The events the gateway notifies, by name (the OpenAPI document's `webhooks`). */
export type WebhookEventType = keyof webhooks;
/** The body the gateway sends for an event, as the OpenAPI document's `webhooks` define it. */
export type WebhookPayload<K extends WebhookEventType> =
  webhooks[K]['post']['requestBody']['content']['application/json'];

/**
 * A verified webhook, typed by its event: narrowing on `eventType` gives the payload's type (a sale's
 * notification for `sale.*`, a withdrawal's for `withdrawal.*`, a cart's for `cart.*`, a dispute's for
 * `dispute.*`). `webhook.test` is the
 * panel's test delivery; `null` an event this SDK does not know yet (a newer gateway), its payload unknown.
 */
export type WebhookEvent =
  | { [K in WebhookEventType]: VerifiedWebhook<WebhookPayload<K>> & { eventType: K } }[WebhookEventType]
  | (VerifiedWebhook<{ type: 'TEST' } & Record<string, unknown>> & { eventType: 'webhook.test' })
  | (VerifiedWebhook<unknown> & { eventType: null });

/** A verified notification about a sale (`sale.paid`, `sale.refunded`, …): its payload is the sale's notification. */
export type SaleWebhookEvent = Extract<WebhookEvent, { eventType: `sale.${string}` }>;

/** True for a sale's notification, narrowing the event's type (instead of comparing every `sale.*` name). */
export function isSaleEvent(event: WebhookEvent): event is SaleWebhookEvent {
  return event.eventType?.startsWith('sale.') ?? false;
}

export interface VerifyWebhookOptions {
  /** The raw body bytes as received (re-serialized JSON does not verify). */
  body: string | Uint8Array;
  /** The request's headers: a Headers object or a plain object, names in any case. */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The webhook's secret (`whsec_…`); during a rotation, both the old and the new one. */
  secret: string | readonly string[];
  /** How far the signed timestamp may be from now. Default 300. */
  toleranceSeconds?: number;
}

export interface VerifiedWebhook<T = unknown> {
  /** The event id (X-Service-Event-Id, webhook-id): the same on every retry, for deduplication. */
  eventId: string;
  /**
   * The event type the signed body states in its `eventType` (e.g. `sale.paid`), or null when it states none this
   * SDK knows. Never inferred from the body's status: a partial refund's `sale.refunded` is a PAGO sale.
   */
  eventType: string | null;
  /** The signed Unix timestamp. */
  timestamp: number;
  /** The body, parsed. */
  payload: T;
}

/** Every event this SDK knows (the OpenAPI document's `webhooks`), and the panel's test delivery. */
const KNOWN_EVENTS: ReadonlySet<string> = new Set<WebhookEventType | 'webhook.test'>([
  'sale.pending',
  'sale.paid',
  'sale.refused',
  'sale.canceled',
  'sale.refunded',
  'sale.chargeback',
  'withdrawal.pending',
  'withdrawal.completed',
  'withdrawal.rejected',
  'withdrawal.canceled',
  'cart.abandoned',
  'cart.recovered',
  'dispute.opened',
  'dispute.won',
  'dispute.lost',
  'anticipation.paid',
  'anticipation.rejected',
  'subscription.created',
  'subscription.activated',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.unpaid',
  'subscription.incomplete_expired',
  'subscription.canceled',
  'invoice.paid',
  'invoice.failed',
  'webhook.test',
]);

/**
 * Verifies a webhook of the gateway and returns what it carries, or throws WebhookVerificationError. Both
 * signatures the gateway sends are checked: X-Service-Signature (HMAC-SHA256 of "<timestamp>.<body>" with the
 * secret's text) and the Standard Webhooks `webhook-signature`, which also covers the event id; the event type
 * is the signed body's `eventType`, never the unsigned X-Service-Event-Type header (which must equal it) nor a
 * guess from the body's status.
 */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookEvent;
/** The same, with the payload typed by the caller (no narrowing by event). */
export function verifyWebhook<T>(options: VerifyWebhookOptions): VerifiedWebhook<T>;
export function verifyWebhook(options: VerifyWebhookOptions): VerifiedWebhook<unknown> {
  const secrets = secretsOf(options.secret);
  if (typeof options.body !== 'string' && !(options.body instanceof Uint8Array)) {
    throw new TypeError(
      'body must be the raw body as received, a string or bytes (a parsed body does not verify: read it before any JSON parser)',
    );
  }
  const body =
    typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : Buffer.from(options.body);
  const get = headerReader(options.headers);
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor(Date.now() / 1000);

  const timestamp = fresh(get('x-service-timestamp'), tolerance, now);
  const given = [get('x-service-signature'), get('x-service-signature-next')].filter((s) => s !== undefined);
  if (given.length === 0) fail('missing X-Service-Signature');
  const signed = secrets.some((secret) => {
    const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
    return given.some((g) => same(g, expected));
  });
  if (!signed) fail('signature mismatch');

  const id = get('webhook-id');
  const list = get('webhook-signature');
  if (!id || !list) fail('missing webhook-id or webhook-signature');
  const standardTs = fresh(get('webhook-timestamp'), tolerance, now);
  const expected = secrets.map((secret) =>
    createHmac('sha256', Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64'))
      .update(`${id}.${standardTs}.`)
      .update(body)
      .digest('base64'),
  );
  const idSigned = list.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return version === 'v1' && signature !== undefined && expected.some((e) => same(signature, e));
  });
  if (!idSigned) fail('the event id is not signed');
  const claimedId = get('x-service-event-id');
  if (claimedId !== undefined && claimedId !== id)
    fail('X-Service-Event-Id does not match the signed webhook-id');

  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    fail('the body is not JSON');
  }
  const stated = statedType(payload);
  const claimedType = get('x-service-event-type');
  if (stated !== null && claimedType !== undefined && claimedType !== stated) {
    fail('X-Service-Event-Type does not match the signed body');
  }
  const eventType = stated !== null && KNOWN_EVENTS.has(stated) ? stated : null;
  return { eventId: id, eventType, timestamp, payload };
}

/**
 * The secrets given, checked: a missing one (an unset environment variable, say) is the receiver's setup, told
 * as such rather than as a delivery that does not verify.
 */
export function secretsOf(secret: string | readonly string[] | undefined): string[] {
  const secrets = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? [...secret] : [];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError(
      "secret is required: the webhook's whsec_… secret, shown when the webhook was created (or both, during a rotation)",
    );
  }
  return secrets;
}

function headerReader(headers: VerifyWebhookOptions['headers']): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (name) => (headers as Headers).get(name) ?? undefined;
  }
  const lower = new Map<string, string>();
  for (const [key, value] of Object.entries(headers)) {
    const v = Array.isArray(value) ? value[0] : value;
    if (v !== undefined) lower.set(key.toLowerCase(), v);
  }
  return (name) => lower.get(name);
}

function fresh(raw: string | undefined, tolerance: number, now: number): number {
  if (!raw || !/^\d{1,12}$/.test(raw)) fail('missing or malformed timestamp');
  const ts = Number(raw);
  if (Math.abs(now - ts) > tolerance) fail('timestamp outside the tolerance window');
  return ts;
}

/** The event the signed body states (its `eventType`), never inferred from its status; null when none. */
function statedType(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const { eventType } = payload as { eventType?: unknown };
  return typeof eventType === 'string' && eventType !== '' ? eventType : null;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function fail(reason: string): never {
  throw new WebhookVerificationError(reason);
}

/**
 * Remembers the event ids of the deliveries handled within `ttlSeconds` (default 24 h), so a retried or resent
 * delivery is handled once. In one process's memory: a receiver with several processes keeps the ids in its
 * database instead (a unique column).
 */
export class EventIdDeduplicator {
  private readonly seen = new Map<string, number>();
  constructor(private readonly ttlSeconds = 24 * 3600) {}

  /** True the first time an id is seen (handle the event); false for a repeat (answer 2xx, do nothing). */
  firstTime(eventId: string, now = Math.floor(Date.now() / 1000)): boolean {
    for (const [id, at] of this.seen) {
      if (now - at <= this.ttlSeconds) break;
      this.seen.delete(id);
    }
    if (this.seen.has(eventId)) return false;
    this.seen.set(eventId, now);
    return true;
  }

  /** Forgets an id, so its next delivery is handled again (its handling failed: the gateway will retry it). */
  forget(eventId: string): void {
    this.seen.delete(eventId);
  }
}
