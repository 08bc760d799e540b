import { randomUUID } from 'node:crypto';
import { lockForTransaction } from '../platform/db/advisory-lock.js';
import type { Queryable } from '../platform/db/db.js';
import type { CardBrand } from './brands.js';
import type { UsedCardTokenRow } from './data.js';
import { takeToken, type UsedCardToken, usedCardOf } from './tokens.js';

/** A card on file, as the merchant sees it: never more than brand, last four and expiry. */
export interface SavedCardView {
  id: string;
  brand: CardBrand;
  lastFour: string;
  expMonth: number;
  expYear: number;
}

interface SavedCardRow {
  uuid: string;
  customer_id: number;
  brand: CardBrand;
  last_four: string;
  exp_month: number;
  exp_year: number;
}

const view = (r: SavedCardRow): SavedCardView => ({
  id: r.uuid,
  brand: r.brand,
  lastFour: r.last_four,
  expMonth: r.exp_month,
  expYear: r.exp_year,
});

/**
 * Saves a card for a customer from a one-time card token of the same account (used here, so it charges nothing
 * else): the acquirer's reusable token it holds stays sealed, the card's only trace. The customer's card on file
 * with the same number and expiry is that card, renewed, not a second one. Null: the token is unknown, another
 * account's, used or expired.
 */
export async function saveCard(
  tx: Queryable,
  accountId: number,
  customerId: number,
  token: string,
): Promise<SavedCardView | null> {
  const used = await takeToken(tx, accountId, token);
  if (!used) return null;
  if (used.fingerprint) {
    // one save of the customer's cards at a time: two of the same card sent together would both find none
    await lockForTransaction(tx, 'saved-cards', customerId);
    // the same card again (its number and expiry) for this customer, as a billing page's card change with the
    // card already on file: one card on file, its acquirer token renewed, its id (and the subscriptions naming
    // it) kept
    const [same] = await tx.query<SavedCardRow & { old_token_id: number }>(
      `WITH same AS (
         SELECT s.id, s.card_token_id FROM saved_cards s JOIN card_tokens t ON t.id = s.card_token_id
          WHERE s.customer_id = $2 AND s.account_id = $3 AND s.deleted_at IS NULL
            AND t.fingerprint = $4 AND t.exp_month = $5 AND t.exp_year = $6
          ORDER BY s.id LIMIT 1 FOR UPDATE OF s)
       UPDATE saved_cards s SET card_token_id = $1 FROM same WHERE s.id = same.id
       RETURNING s.uuid, s.customer_id, same.card_token_id AS old_token_id, $7::text AS brand,
                 $8::text AS last_four, $5::int AS exp_month, $6::int AS exp_year`,
      [
        used.id,
        customerId,
        accountId,
        used.fingerprint,
        used.exp_month,
        used.exp_year,
        used.brand,
        used.last_four,
      ],
    );
    if (same) {
      await wipeAcquirerToken(tx, same.old_token_id);
      return view(same);
    }
  }
  const [row] = await tx.query<SavedCardRow>(
    `INSERT INTO saved_cards (uuid, account_id, customer_id, card_token_id) VALUES ($1, $2, $3, $4)
     RETURNING uuid, customer_id, $5::text AS brand, $6::text AS last_four, $7::int AS exp_month, $8::int AS exp_year`,
    [randomUUID(), accountId, customerId, used.id, used.brand, used.last_four, used.exp_month, used.exp_year],
  );
  return view(row!);
}

/** The saved cards of these customers (not deleted), oldest first. */
export async function savedCardsOf(
  q: Queryable,
  customerIds: number[],
): Promise<Map<number, SavedCardView[]>> {
  const rows = await q.query<SavedCardRow>(
    `SELECT s.uuid, s.customer_id, t.brand, t.last_four, t.exp_month, t.exp_year
       FROM saved_cards s JOIN card_tokens t ON t.id = s.card_token_id
      WHERE s.customer_id = ANY($1::bigint[]) AND s.deleted_at IS NULL ORDER BY s.id`,
    [customerIds],
  );
  const out = new Map<number, SavedCardView[]>();
  for (const r of rows) {
    const list = out.get(Number(r.customer_id)) ?? [];
    list.push(view(r));
    out.set(Number(r.customer_id), list);
  }
  return out;
}

/**
 * Deletes a customer's saved card: it charges nothing any more, and the acquirer's token it kept is wiped (the
 * card's sales keep their brand and last four). False when the customer has no such card.
 */
export async function deleteSavedCard(
  tx: Queryable,
  accountId: number,
  customerId: number,
  cardId: string,
): Promise<boolean> {
  const [row] = await tx.query<{ card_token_id: number }>(
    `UPDATE saved_cards SET deleted_at = now()
      WHERE uuid = $1 AND account_id = $2 AND customer_id = $3 AND deleted_at IS NULL RETURNING card_token_id`,
    [cardId, accountId, customerId],
  );
  if (!row) return false;
  await wipeAcquirerToken(tx, row.card_token_id);
  return true;
}

/** A saved card of the account, as a charge uses it (any number of times); null when there is none. */
export async function useSavedCard(
  q: Queryable,
  secretsKey: Buffer,
  accountId: number,
  cardId: string,
): Promise<UsedCardToken | null> {
  const [row] = await q.query<UsedCardTokenRow>(
    `SELECT t.id, t.acquirer, t.acquirer_token_sealed, t.brand, t.last_four, t.exp_month, t.exp_year, t.bin,
            t.fingerprint, t.ip
       FROM saved_cards s JOIN card_tokens t ON t.id = s.card_token_id
      WHERE s.uuid = $1 AND s.account_id = $2 AND s.deleted_at IS NULL`,
    [cardId, accountId],
  );
  return row ? usedCardOf(row, secretsKey) : null;
}

/** A card token's sealed acquirer token wiped: it charges nothing any more (its sales keep brand and last four). */
async function wipeAcquirerToken(tx: Queryable, tokenId: number): Promise<void> {
  await tx.query(`UPDATE card_tokens SET acquirer_token_sealed = '' WHERE id = $1`, [tokenId]);
}
