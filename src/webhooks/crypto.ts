import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A webhook secret as the merchant holds it (`whsec_` + base64 of 32 random bytes). Never stored as is. */
export type WebhookSecret = string & { readonly __webhookSecret: unique symbol };
/** The stored form: `v1.<iv>.<tag>.<ciphertext>` (base64), AES-256-GCM under SECRETS_KEY. */
export type EncryptedSecret = string & { readonly __encrypted: unique symbol };

export function newWebhookSecret(): WebhookSecret {
  return `whsec_${randomBytes(32).toString('base64')}` as WebhookSecret;
}

export function encryptSecret(key: Buffer, secret: WebhookSecret): EncryptedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `v1.${iv.toString('base64')}.${tag.toString('base64')}.${ct.toString('base64')}` as EncryptedSecret;
}

export function decryptSecret(key: Buffer, stored: string): WebhookSecret {
  const [version, iv, tag, ct] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || !ct) throw new Error('unknown webhook secret format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  const plain = Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]);
  return plain.toString('utf8') as WebhookSecret;
}
