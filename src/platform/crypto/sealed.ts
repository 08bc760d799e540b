import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

/**
 * Secrets the gateway must use again later (webhook signing secrets, TOTP secrets) are stored sealed:
 * `v1.<iv>.<tag>.<ciphertext>` (base64), AES-256-GCM under SECRETS_KEY.
 *
 * A process that does not hold SECRETS_KEY (an operator command) seals to it instead, with `sealTo` and the
 * public key `sealingPublicKey` derives from SECRETS_KEY: `v2.<ephemeral public key>.<iv>.<tag>.<ciphertext>`,
 * an X25519 agreement between a fresh key pair and the gateway's, HKDF-SHA256 to an AES-256-GCM key. `unseal`
 * opens both with SECRETS_KEY alone; nothing without it opens a v2 text, its sealer included.
 */
export function seal(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `v1.${iv.toString('base64')}.${tag.toString('base64')}.${ct.toString('base64')}`;
}

export function unseal(key: Buffer, stored: string): string {
  const parts = stored.split('.');
  if (parts[0] === 'v2' && parts.length === 5) {
    const [, ephemeral, iv, tag, ct] = parts as [string, string, string, string, string];
    const own = sealingKeys(key);
    const peer = createPublicKey({ key: Buffer.from(ephemeral, 'base64'), format: 'der', type: 'spki' });
    const shared = diffieHellman({ privateKey: own.privateKey, publicKey: peer });
    return open(agreedKey(shared, Buffer.from(ephemeral, 'base64'), own.publicDer), iv, tag, ct);
  }
  const [version, iv, tag, ct] = parts;
  // an empty text seals to an empty ciphertext
  if (version !== 'v1' || !iv || !tag || ct === undefined || parts.length !== 4) {
    throw new Error('unknown sealed secret format');
  }
  return open(key, iv, tag, ct);
}

function open(key: Buffer, iv: string, tag: string, ct: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
}

/** The public key texts are sealed to for SECRETS_KEY `key` (base64 SPKI DER): safe to publish. */
export function sealingPublicKey(key: Buffer): string {
  return sealingKeys(key).publicDer.toString('base64');
}

/** Seals `text` so that only a holder of the SECRETS_KEY whose `sealingPublicKey` this is can open it. */
export function sealTo(publicKey: string, text: string): string {
  const gatewayDer = Buffer.from(publicKey, 'base64');
  const gateway = createPublicKey({ key: gatewayDer, format: 'der', type: 'spki' });
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralDer = ephemeral.publicKey.export({ format: 'der', type: 'spki' });
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: gateway });
  const sealed = seal(agreedKey(shared, ephemeralDer, gatewayDer), text);
  return `v2.${ephemeralDer.toString('base64')}.${sealed.slice('v1.'.length)}`;
}

/** PKCS #8 DER of an X25519 private key, before its 32 raw bytes (RFC 8410). */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const derived = new WeakMap<Buffer, { privateKey: KeyObject; publicDer: Buffer }>();

/** The X25519 key pair of SECRETS_KEY `key`: its private half is HKDF(key), never stored. */
function sealingKeys(key: Buffer): { privateKey: KeyObject; publicDer: Buffer } {
  let keys = derived.get(key);
  if (!keys) {
    const raw = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'gateway sealing key pair x25519', 32));
    const privateKey = createPrivateKey({
      key: Buffer.concat([X25519_PKCS8_PREFIX, raw]),
      format: 'der',
      type: 'pkcs8',
    });
    keys = { privateKey, publicDer: createPublicKey(privateKey).export({ format: 'der', type: 'spki' }) };
    derived.set(key, keys);
  }
  return keys;
}

function agreedKey(shared: Buffer, ephemeralDer: Buffer, gatewayDer: Buffer): Buffer {
  const salt = Buffer.concat([ephemeralDer, gatewayDer]);
  return Buffer.from(hkdfSync('sha256', shared, salt, 'gateway sealed v2', 32));
}
