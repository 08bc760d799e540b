import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A private key or session token as the client holds it. Never stored; only its hash is. */
export type PlainSecret = string & { readonly __plain: unique symbol };
/** SHA-256 hex of a PlainSecret: what the database holds. */
export type SecretHash = string & { readonly __hash: unique symbol };

export function newToken(prefix: string, bytes: number): PlainSecret {
  return `${prefix}${randomBytes(bytes).toString('base64url')}` as PlainSecret;
}

export function hashSecret(secret: PlainSecret | string): SecretHash {
  // the one-shot digest (no Hash object): a third of createHash's time, on every API-key request
  return hash('sha256', secret, 'hex') as SecretHash;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab); // spend comparable time on length mismatch too
    return false;
  }
  return timingSafeEqual(ab, bb);
}
