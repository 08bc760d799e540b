import { createHmac } from 'node:crypto';
import { constantTimeEqual } from './secrets.js';

/**
 * The signature form every callback and notification here uses: `sha256=` + lowercase hex HMAC-SHA256,
 * keyed with `secret`, of `<timestamp>.<body bytes>`.
 */
export function signTimestamped(secret: string, timestamp: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

export type SignatureCheck = 'ok' | 'missing' | 'invalid' | 'stale';

/**
 * Checks a received timestamp and signature (header values) over the raw body: both present, the timestamp
 * epoch seconds, the signature right (compared in constant time), and the timestamp within `toleranceS` of now.
 */
export function checkTimestamped(
  secret: string,
  timestamp: unknown,
  signature: unknown,
  rawBody: Buffer,
  nowMs: number,
  toleranceS = 300,
): SignatureCheck {
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(timestamp)) {
    return 'missing';
  }
  if (!constantTimeEqual(signature, signTimestamped(secret, timestamp, rawBody))) return 'invalid';
  return Math.abs(nowMs / 1000 - Number(timestamp)) <= toleranceS ? 'ok' : 'stale';
}
