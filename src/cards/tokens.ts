import { cardPaymentsPaused } from '../accounts/index.js';
import { coalescedReader } from '../platform/concurrency/coalesced-reads.js';
import { seal, unseal } from '../platform/crypto/sealed.js';
import { hashSecret, newToken, type SecretHash } from '../platform/crypto/secrets.js';
import { addRows, type Db, type GatheredWrite, type Queryable } from '../platform/db/db.js';
import { validation } from '../platform/errors/app-error.js';
import type { Acquirer } from './acquirer.js';
import type { CardBrand } from './brands.js';
import { type CardInput, checkCard } from './card-checks.js';
import {
  insertCardToken,
  type LiveCardTokenRow,
  liveCardTokens,
  spendCardTokens,
  type UsedCardTokenRow,
  useCardToken,
} from './data.js';
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

/** What a one-time token looks like (`tok_` and 24 random bytes, base64url): anything else names none. */
const TOKEN_FORMAT = /^tok_[A-Za-z0-9_-]{32}$/;

/** The refusal of a charge whose one-time token cannot be used. */
export const TOKEN_UNUSABLE = 'card.token is unknown, used or expired';

/**
 * An account's live token as a charge reads it before using it (nothing written): null when it is unknown,
 * another account's, used already or expired. Read by the query the charges arriving together share
 * (coalescedReader: nothing cached); `tokenInTx` reads it in a transaction. The charge then uses it with
 * `spendToken`, which checks again.
 */
export function tokenToUse(
  db: Db,
  secretsKey: Buffer,
  accountId: number,
  token: string,
): Promise<UsedCardToken | null> {
  return readToken((hash) => sharedTokenReads(db)(hash), secretsKey, accountId, token);
}

/** tokenToUse in the caller's transaction, by a query of its own. */
export function tokenInTx(
  tx: Queryable,
  secretsKey: Buffer,
  accountId: number,
  token: string,
): Promise<UsedCardToken | null> {
  return readToken(async (hash) => (await liveCardTokens(tx, [hash]))[0], secretsKey, accountId, token);
}

async function readToken(
  read: (hash: SecretHash) => Promise<LiveCardTokenRow | undefined>,
  secretsKey: Buffer,
  accountId: number,
  token: string,
): Promise<UsedCardToken | null> {
  if (!TOKEN_FORMAT.test(token)) return null;
  const row = await read(hashSecret(token));
  return row && Number(row.account_id) === accountId ? usedCardOf(row, secretsKey) : null;
}

const tokenReaders = new WeakMap<Db, (hash: SecretHash) => Promise<LiveCardTokenRow | undefined>>();

function sharedTokenReads(db: Db): (hash: SecretHash) => Promise<LiveCardTokenRow | undefined> {
  let read = tokenReaders.get(db);
  if (!read) {
    read = coalescedReader(async (hashes: readonly SecretHash[]) => {
      const rows = await liveCardTokens(db, hashes);
      return new Map(rows.map((r) => [r.token_hash, r]));
    });
    tokenReaders.set(db, read);
  }
  return read;
}

/**
 * Uses a token `tokenToUse` read, in the charge's transaction: marked used with the other tokens of the charges
 * sharing it, by one statement just before its COMMIT (Queryable.gather), else at once. A token used meanwhile
 * (by a charge that committed first, or twice in one transaction) refuses the statement with TOKEN_UNUSABLE:
 * where it was gathered, the shared transaction is run again charge by charge, and only the charge whose token
 * it was is refused.
 */
export function spendToken(tx: Queryable, tokenId: number): Promise<void> {
  return addRows(tx, SPENT_TOKENS, [tokenId]);
}

const SPENT_TOKENS: GatheredWrite<number> = {
  write: async (tx, ids) => {
    if ((await spendCardTokens(tx, ids)) !== ids.length) throw validation(TOKEN_UNUSABLE);
  },
};

/**
 * An account's token, used now in the caller's transaction (a card saved from it): its row, or null when it is
 * unknown, another account's, used already or expired. A second use, even concurrent, gets null.
 */
export function takeToken(tx: Queryable, accountId: number, token: string): Promise<UsedCardTokenRow | null> {
  if (!TOKEN_FORMAT.test(token)) return Promise.resolve(null);
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
