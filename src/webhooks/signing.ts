import { createHmac } from 'node:crypto';
import { signTimestamped } from '../platform/timestamped-signature.js';
import type { WebhookSecret } from './crypto.js';

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

/** Every header of one webhook attempt, signed now. */
export function signWebhook(
  secret: WebhookSecret,
  eventId: string,
  eventType: string,
  body: string,
  redelivery: boolean,
  nowMs = Date.now(),
): SignedWebhook {
  const timestamp = String(Math.floor(nowMs / 1000));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-signature': serviceSignature(secret, timestamp, body),
    'x-service-timestamp': timestamp,
    'x-service-event-id': eventId,
    'x-service-event-type': eventType,
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': standardSignature(secret, eventId, timestamp, body),
  };
  if (redelivery) headers['x-service-redelivery'] = 'true';
  return { timestamp, headers };
}
