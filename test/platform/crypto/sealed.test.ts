import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seal, sealingPublicKey, sealTo, unseal } from '../../../src/platform/crypto/sealed.js';

/** Sealed at rest: under SECRETS_KEY (v1), or to its public key by a process without it (v2). */
describe('sealed texts', () => {
  const key = randomBytes(32);

  it('opens what was sealed under the key, or to its public key, and only with that key', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 2000 }), (text) => {
        expect(unseal(key, seal(key, text))).toBe(text);
        const toGateway = sealTo(sealingPublicKey(key), text);
        expect(toGateway.startsWith('v2.')).toBe(true);
        expect(unseal(key, toGateway)).toBe(text);
      }),
      { numRuns: 50 },
    );
    const other = randomBytes(32);
    expect(() => unseal(other, sealTo(sealingPublicKey(key), 'convite'))).toThrow();
    expect(() => unseal(other, seal(key, 'convite'))).toThrow();
  });

  it('derives one public key per SECRETS_KEY, and a fresh sealing each time', () => {
    expect(sealingPublicKey(Buffer.from(key))).toBe(sealingPublicKey(key));
    expect(sealingPublicKey(randomBytes(32))).not.toBe(sealingPublicKey(key));
    const publicKey = sealingPublicKey(key);
    expect(sealTo(publicKey, 'x')).not.toBe(sealTo(publicKey, 'x'));
  });

  it('refuses a tampered or unknown text', () => {
    const sealed = sealTo(sealingPublicKey(key), 'link secreto');
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[4]!, 'base64');
    ct[0]! ^= 1;
    parts[4] = ct.toString('base64');
    expect(() => unseal(key, parts.join('.'))).toThrow();
    expect(() => unseal(key, 'v3.a.b.c')).toThrow('unknown sealed secret format');
    expect(() => unseal(key, 'v1.a.b')).toThrow('unknown sealed secret format');
  });
});
