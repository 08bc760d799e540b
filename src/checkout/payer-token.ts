import { createHash, randomBytes } from 'node:crypto';

/** The token a payer's page keeps: 32 random bytes, base64url (what the route's schema accepts back). */
export const PAYER_TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';

/**
 * The payer of a page, told apart from any other by a token their page keeps (not by the CPF they type, which
 * another payer may type too): the one the page sent back, or a new one for a page that has none yet. Only its
 * hash is stored with the charge; a lookup compares hashes, so the stored value opens nothing.
 */
export function payerTokenOf(given: string | undefined): { token: string; hash: Buffer } {
  const token = given ?? randomBytes(32).toString('base64url');
  return { token, hash: createHash('sha256').update(token).digest() };
}
