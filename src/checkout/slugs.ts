import { randomBytes } from 'node:crypto';

/** A payment link's public name: 96 random bits in base64url (16 characters), not guessable from another. */
export function newSlug(): string {
  return randomBytes(12).toString('base64url');
}

/** What a slug looks like: anything else is not looked up. */
export const isSlug = (raw: string): boolean => /^[A-Za-z0-9_-]{16}$/.test(raw);
