import { cardPaymentsPaused } from '../accounts/index.js';
import { seal, unseal } from '../platform/crypto/sealed.js';
import { hashSecret, newToken } from '../platform/crypto/secrets.js';
import type { Db, Queryable } from '../platform/db/db.js';
import type { Acquirer } from './acquirer.js';
import type { CardBrand } from './brands.js';
import { type CardInput, checkCard } from './card-checks.js';
import { insertCardToken, type UsedCardTokenRow, useCardToken } from './data.js';
import { cardFingerprint } from './fingerprint.js';
import { refuseWhenPaused } from './refusal-watch.js';

/** A token lives this long, and is used once. */
export const CARD_TOKEN_LIFETIME_SECONDS = 15 * 60;

export interface IssuedCardToken {
  token: string;
  brand: CardBrand;
  lastFour: string;
  expMonth: number;
  expYear: number;
}

/** What a charge gets of a token it used: the acquirer's token, opened, and what the gateway knows of the card. */
export interface UsedCardToken {
  id: number;
  acquirer: string;
  acquirerToken: string;
  brand: CardBrand;
  lastFour: string;
  expMonth: number;
  expYear: number;
  /** What the risk rules may match of the card: its first six digits, its fingerprint, where it was typed. */
  bin: string | null;
  fingerprint: string | null;
  ip: string | null;
}

export class CardTokens {
  constructor(
    private readonly db: Db,
    private readonly acquirer: Acquirer,
    private readonly secretsKey: Buffer,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Checks the card, tokenizes it at the acquirer, keeps the acquirer's token sealed; 192 random bits in ours. */
  async issue(accountId: number, input: CardInput, from: { ip: string | null }): Promise<IssuedCardToken> {
    refuseWhenPaused(await cardPaymentsPaused(this.db, accountId));
    const card = checkCard(input, this.now());
    const { acquirerToken } = await this.acquirer.tokenize(card);
    const token = newToken('tok_', 24);
    const lastFour = card.number.slice(-4);
    await insertCardToken(this.db, {
      tokenHash: hashSecret(token),
      accountId,
      acquirer: this.acquirer.name,
      acquirerTokenSealed: seal(this.secretsKey, acquirerToken),
      brand: card.brand,
      lastFour,
      expMonth: card.expMonth,
      expYear: card.expYear,
      lifetimeSeconds: CARD_TOKEN_LIFETIME_SECONDS,
      bin: card.number.slice(0, 6),
      fingerprint: cardFingerprint(this.secretsKey, card.number),
      ip: from.ip,
    });
    return { token, brand: card.brand, lastFour, expMonth: card.expMonth, expYear: card.expYear };
  }
}

/**
 * Uses an account's token, in the caller's transaction (the charge that uses it): null when it is unknown,
 * another account's, used already or expired. A second use, even concurrent, gets null.
 */
export async function useToken(
  tx: Queryable,
  secretsKey: Buffer,
  accountId: number,
  token: string,
): Promise<UsedCardToken | null> {
  const row = await takeToken(tx, accountId, token);
  return row ? usedCardOf(row, secretsKey) : null;
}

/** An account's token, used now in the caller's transaction: its row, or null as useToken says. */
export function takeToken(tx: Queryable, accountId: number, token: string): Promise<UsedCardTokenRow | null> {
  if (!/^tok_[A-Za-z0-9_-]{32}$/.test(token)) return Promise.resolve(null);
  return useCardToken(tx, accountId, hashSecret(token));
}

/** A card token's row as a charge uses it: its acquirer token unsealed. A saved card's token reads the same. */
export function usedCardOf(row: UsedCardTokenRow, secretsKey: Buffer): UsedCardToken {
  return {
    id: Number(row.id),
    acquirer: row.acquirer,
    acquirerToken: unseal(secretsKey, row.acquirer_token_sealed),
    brand: row.brand,
    lastFour: row.last_four,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    bin: row.bin,
    fingerprint: row.fingerprint,
    ip: row.ip,
  };
}
