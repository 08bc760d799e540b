/**
 * Receiver-side verification of this gateway's notifications, for merchants (`import … from
 * 'payment-gateway/verify'`). No dependencies beyond node:crypto (and this package's own secrets module). Always pass the raw request body bytes as
 * received: re-serialized JSON does not verify.
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../platform/crypto/secrets.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type Headers = Record<string, string | string[] | undefined>;

export type VerifyResult =
  | {
      ok: true;
      eventId: string;
      /** From the signed body (`eventType`); null when the body states none. */
      eventType: string | null;
      timestamp: number;
      redelivery: boolean;
    }
  | { ok: false; reason: string };

export interface VerifyOptions {
  /** The raw body bytes (Buffer/Uint8Array) or the exact text received. */
  body: Uint8Array | string;
  headers: Headers;
  /**
   * The webhook secret as shown at creation or rotation (`whsec_…`). During a rotation pass either secret, or
   * both (old and new): a delivery verifies when any of them signed it.
   */
  secret: string | readonly string[];
  toleranceSeconds?: number;
  /** Current time in epoch seconds (tests). */
  now?: number;
}

function secretsOf(options: VerifyOptions): readonly string[] {
  return typeof options.secret === 'string' ? [options.secret] : options.secret;
}

function header(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function bytes(body: Uint8Array | string): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
}

function freshTimestamp(raw: string | undefined, tolerance: number, now: number): number | string {
  if (!raw || !/^\d{1,12}$/.test(raw)) return 'missing or malformed timestamp';
  const ts = Number(raw);
  if (Math.abs(now - ts) > tolerance) return 'timestamp outside the tolerance window';
  return ts;
}

/**
 * The event type as the signed body states it (its `eventType`), or null when it states none. The
 * X-Service-Event-Type header is not covered by X-Service-Signature, so a captured sale.pending relabelled
 * sale.paid must not pass; and the type is never inferred from the body's status (a partial refund's
 * sale.refunded is a PAGO sale).
 */
export function signedEventType(body: Uint8Array | string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes(body).toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const { eventType } = parsed as { eventType?: unknown };
  return typeof eventType === 'string' && eventType !== '' ? eventType : null;
}

/**
 * The event type from the signed body; a differing X-Service-Event-Type header is a relabelled delivery. A body
 * that states no known event yields null (never the unsigned header): the receiver reads the body itself.
 */
function eventTypeOf(options: VerifyOptions): { type: string | null } | { reason: string } {
  const type = signedEventType(options.body);
  const claimed = header(options.headers, 'x-service-event-type');
  if (type !== null && claimed !== undefined && claimed !== type) {
    return { reason: 'X-Service-Event-Type does not match the signed body' };
  }
  return { type };
}

/**
 * X-Service-Signature = "sha256=" + hex HMAC-SHA256(secret text, "<timestamp>.<raw body>"): the API contract's signature
 * covers the timestamp and the body only. So the event type is read from the body, and the event id (for
 * deduplication) from the Standard Webhooks signature the gateway sends alongside, which covers `webhook-id`:
 * a delivery whose id is not signed, or whose X-Service-Event-Id differs from the signed one, is refused.
 */
export function verifyWebhook(options: VerifyOptions): VerifyResult {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const ts = freshTimestamp(
    header(options.headers, 'x-service-timestamp'),
    options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    now,
  );
  if (typeof ts === 'string') return { ok: false, reason: ts };
  const given = header(options.headers, 'x-service-signature');
  if (!given) return { ok: false, reason: 'missing X-Service-Signature' };
  // during a rotation X-Service-Signature is the old secret's and X-Service-Signature-Next the new one's
  const next = header(options.headers, 'x-service-signature-next');
  const signed = secretsOf(options).some((secret) => {
    const expected = `sha256=${createHmac('sha256', secret)
      .update(`${ts}.`, 'utf8')
      .update(bytes(options.body))
      .digest('hex')}`;
    return constantTimeEqual(given, expected) || (next !== undefined && constantTimeEqual(next, expected));
  });
  if (!signed) return { ok: false, reason: 'signature mismatch' };
  const eventType = eventTypeOf(options);
  if ('reason' in eventType) return { ok: false, reason: eventType.reason };
  const standard = verifyStandardWebhook(options);
  if (!standard.ok) return { ok: false, reason: `event id not signed: ${standard.reason}` };
  const claimedId = header(options.headers, 'x-service-event-id');
  if (claimedId !== undefined && claimedId !== standard.eventId) {
    return { ok: false, reason: 'X-Service-Event-Id does not match the signed webhook-id' };
  }
  return { ...standard, timestamp: ts };
}

/** Standard Webhooks: webhook-signature holds "v1,<base64 HMAC-SHA256(key, "<id>.<ts>.<body>")>" entries. */
export function verifyStandardWebhook(options: VerifyOptions): VerifyResult {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const ts = freshTimestamp(
    header(options.headers, 'webhook-timestamp'),
    options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    now,
  );
  if (typeof ts === 'string') return { ok: false, reason: ts };
  const id = header(options.headers, 'webhook-id');
  const list = header(options.headers, 'webhook-signature');
  if (!id || !list) return { ok: false, reason: 'missing webhook-id or webhook-signature' };
  const expected = secretsOf(options).map((secret) =>
    createHmac('sha256', Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64'))
      .update(`${id}.${ts}.`, 'utf8')
      .update(bytes(options.body))
      .digest('base64'),
  );
  const match = list.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return (
      version === 'v1' && signature !== undefined && expected.some((e) => constantTimeEqual(signature, e))
    );
  });
  if (!match) return { ok: false, reason: 'signature mismatch' };
  const eventType = eventTypeOf(options);
  if ('reason' in eventType) return { ok: false, reason: eventType.reason };
  return {
    ok: true,
    eventId: id,
    eventType: eventType.type,
    timestamp: ts,
    redelivery: header(options.headers, 'x-service-redelivery') === 'true',
  };
}

/** Per-sale postback: X-Signature = lowercase hex HMAC-SHA256(postback secret, raw body). */
export function verifyPostback(options: {
  body: Uint8Array | string;
  signature: string | undefined;
  postbackSecret: string;
}): boolean {
  if (!options.signature) return false;
  const expected = createHmac('sha256', options.postbackSecret).update(bytes(options.body)).digest('hex');
  return constantTimeEqual(options.signature.toLowerCase(), expected);
}

/**
 * Remembers event ids seen within the tolerance window, so a retried or resent delivery is processed once.
 * In-memory: a receiver running several processes should keep ids in its database (unique constraint) instead.
 */
export class EventIdDeduplicator {
  private readonly seen = new Map<string, number>();
  constructor(private readonly ttlSeconds = 24 * 3600) {}

  /** True the first time an id is seen (process it); false for a repeat (answer 2xx, do nothing). */
  firstTime(eventId: string, now = Math.floor(Date.now() / 1000)): boolean {
    for (const [id, at] of this.seen) {
      if (now - at <= this.ttlSeconds) break;
      this.seen.delete(id);
    }
    if (this.seen.has(eventId)) return false;
    this.seen.set(eventId, now);
    return true;
  }
}
