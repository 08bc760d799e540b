import { randomBytes } from 'node:crypto';
import { seal, unseal } from '../platform/crypto/sealed.js';

/** A webhook secret as the merchant holds it (`whsec_` + base64 of 32 random bytes). Never stored as is. */
export type WebhookSecret = string & { readonly __webhookSecret: unique symbol };
/** The stored form (platform/crypto/sealed.ts) of a webhook's signing keys. */
export type EncryptedSecret = string & { readonly __encrypted: unique symbol };

/**
 * What signs a webhook's deliveries: its secret, and during a rotation's overlap the previous one too
 * (it keeps signing X-Service-Signature until `previousUntilMs`).
 */
export interface SigningKeys {
  current: WebhookSecret;
  previous: WebhookSecret | null;
  previousUntilMs: number;
}

export function newWebhookSecret(): WebhookSecret {
  return `whsec_${randomBytes(32).toString('base64')}` as WebhookSecret;
}

/**
 * Sealed as one value, so a rotation changes one column and every reader sees both keys or neither: a bare
 * secret, or `{"s": current, "p": previous, "u": overlap end (epoch ms)}` during and after a rotation.
 */
export function sealKeys(key: Buffer, keys: SigningKeys | WebhookSecret): EncryptedSecret {
  if (typeof keys === 'string') return seal(key, keys) as EncryptedSecret;
  return seal(
    key,
    JSON.stringify({ s: keys.current, p: keys.previous, u: keys.previousUntilMs }),
  ) as EncryptedSecret;
}

export function openKeys(key: Buffer, stored: string): SigningKeys {
  const text = unseal(key, stored);
  if (!text.startsWith('{')) return { current: text as WebhookSecret, previous: null, previousUntilMs: 0 };
  const ring = JSON.parse(text) as { s: string; p: string | null; u: number };
  return {
    current: ring.s as WebhookSecret,
    previous: ring.p as WebhookSecret | null,
    previousUntilMs: ring.u,
  };
}
