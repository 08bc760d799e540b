import { createHmac } from 'node:crypto';

/** X-Signature: lowercase hex HMAC-SHA256 of the exact body text sent, keyed with the operator's postback secret. */
export function postbackSignature(postbackSecret: string, body: string): string {
  return createHmac('sha256', postbackSecret).update(body, 'utf8').digest('hex');
}

export function postbackHeaders(postbackSecret: string, body: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-signature': postbackSignature(postbackSecret, body) };
}
