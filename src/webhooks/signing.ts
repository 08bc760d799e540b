import { createHmac } from 'node:crypto';
import { signTimestamped } from '../platform/crypto/timestamped-signature.js';
import type { SigningKeys, WebhookSecret } from './crypto.js';

export interface SignedWebhook {
  timestamp: string;
  headers: Record<string, string>;
}

/** `sha256=` + hex HMAC-SHA256 of `<timestamp>.<body>`, keyed with the secret text exactly as shown. */
export function serviceSignature(secret: string, timestamp: string, body: string): string {
  return signTimestamped(secret, timestamp, body);
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed with the bytes after whsec_. */
export function standardSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * Every header of one webhook attempt, signed now. During a rotation's overlap X-Service-Signature stays keyed
 * with the previous secret, X-Service-Signature-Next carries the new one's, and webhook-signature both
 * (`v1,<old> v1,<new>`, the Standard Webhooks rotation form); after it only the new secret signs.
 */
export function signWebhook(
  secret: SigningKeys | WebhookSecret,
  eventId: string,
  eventType: string,
  body: string,
  redelivery: boolean,
  nowMs = Date.now(),
): SignedWebhook {
  const keys = typeof secret === 'string' ? { current: secret, previous: null, previousUntilMs: 0 } : secret;
  const timestamp = String(Math.floor(nowMs / 1000));
  const overlap = keys.previous !== null && nowMs < keys.previousUntilMs ? keys.previous : null;
  const current = serviceSignature(keys.current, timestamp, body);
  const standard = standardSignature(keys.current, eventId, timestamp, body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-signature': overlap ? serviceSignature(overlap, timestamp, body) : current,
    'x-service-timestamp': timestamp,
    'x-service-event-id': eventId,
    'x-service-event-type': eventType,
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': overlap
      ? `${standardSignature(overlap, eventId, timestamp, body)} ${standard}`
      : standard,
  };
  if (overlap) headers['x-service-signature-next'] = current;
  if (redelivery) headers['x-service-redelivery'] = 'true';
  return { timestamp, headers };
}
