/**
 * Receiver-side verification of this gateway's notifications, for merchants (`import … from
 * 'payment-gateway/verify'`). No dependencies beyond node:crypto (and this package's own secrets module). Always pass the raw request body bytes as
 * received: re-serialized JSON does not verify.
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../auth/secrets.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type Headers = Record<string, string | string[] | undefined>;

export type VerifyResult =
  | { ok: true; eventId: string; eventType: string; timestamp: number; redelivery: boolean }
  | { ok: false; reason: string };

export interface VerifyOptions {
  /** The raw body bytes (Buffer/Uint8Array) or the exact text received. */
  body: Uint8Array | string;
  headers: Headers;
  /** The webhook secret as shown at creation (`whsec_…`). */
  secret: string;
  toleranceSeconds?: number;
  /** Current time in epoch seconds (tests). */
  now?: number;
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

/** X-Service-Signature = "sha256=" + hex HMAC-SHA256(secret text, "<timestamp>.<raw body>"). */
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
  const expected = `sha256=${createHmac('sha256', options.secret)
    .update(`${ts}.`, 'utf8')
    .update(bytes(options.body))
    .digest('hex')}`;
  if (!constantTimeEqual(given, expected)) return { ok: false, reason: 'signature mismatch' };
  const eventId = header(options.headers, 'x-service-event-id');
  if (!eventId) return { ok: false, reason: 'missing X-Service-Event-Id' };
  return {
    ok: true,
    eventId,
    eventType: header(options.headers, 'x-service-event-type') ?? '',
    timestamp: ts,
    redelivery: header(options.headers, 'x-service-redelivery') === 'true',
  };
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
  const key = Buffer.from(
    options.secret.startsWith('whsec_') ? options.secret.slice(6) : options.secret,
    'base64',
  );
  const expected = createHmac('sha256', key)
    .update(`${id}.${ts}.`, 'utf8')
    .update(bytes(options.body))
    .digest('base64');
  const match = list.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return version === 'v1' && signature !== undefined && constantTimeEqual(signature, expected);
  });
  if (!match) return { ok: false, reason: 'signature mismatch' };
  return {
    ok: true,
    eventId: id,
    eventType: header(options.headers, 'x-service-event-type') ?? '',
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
