import { createHmac } from 'node:crypto';

/**
 * A card's fingerprint: an HMAC of its number's digits under a key derived from SECRETS_KEY, never the number.
 * The same card always gives the same fingerprint within a deployment (so attempts with it can be counted and
 * blocked), and nothing outside the deployment can tell which card it is.
 */
export function cardFingerprint(secretsKey: Buffer, number: string): string {
  const key = createHmac('sha256', secretsKey).update('card-fingerprint').digest();
  return createHmac('sha256', key).update(number.replace(/\D/g, '')).digest('hex');
}
