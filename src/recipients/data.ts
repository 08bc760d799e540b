import type { Queryable } from '../platform/db/db.js';

/** A row of `recipients`. */
export interface RecipientRow {
  id: number;
  uuid: string;
  account_id: number;
  name: string;
  document: string;
  email: string;
  pix_key: string;
  pix_key_type: string;
  transfer_interval: 'manual' | 'daily' | 'weekly';
  /** False: it takes no new split (its balance, receivables and payouts go on). */
  active: boolean;
  created_at: Date;
}

export async function insertRecipient(
  tx: Queryable,
  r: Omit<RecipientRow, 'id' | 'created_at' | 'active'>,
): Promise<RecipientRow> {
  const [row] = await tx.query<RecipientRow>(
    `INSERT INTO recipients (uuid, account_id, name, document, email, pix_key, pix_key_type, transfer_interval)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [r.uuid, r.account_id, r.name, r.document, r.email, r.pix_key, r.pix_key_type, r.transfer_interval],
  );
  return { ...row!, id: Number(row!.id), account_id: Number(row!.account_id) };
}

/** The account's recipient of this uuid; null when there is none or it is another account's. */
export async function findRecipient(
  q: Queryable,
  accountId: number,
  uuid: string,
): Promise<RecipientRow | null> {
  const [row] = await q.query<RecipientRow>('SELECT * FROM recipients WHERE uuid = $1 AND account_id = $2', [
    uuid,
    accountId,
  ]);
  return row ? { ...row, id: Number(row.id), account_id: Number(row.account_id) } : null;
}

/** The account's recipients among these uuids (others' and unknown ones are left out). */
export async function findRecipients(
  q: Queryable,
  accountId: number,
  uuids: string[],
): Promise<RecipientRow[]> {
  const rows = await q.query<RecipientRow>(
    'SELECT * FROM recipients WHERE uuid = ANY($1::uuid[]) AND account_id = $2',
    [uuids, accountId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), account_id: Number(r.account_id) }));
}

/** A page of the account's recipients, newest first: those with an id below `before`. */
export async function listRecipients(
  q: Queryable,
  accountId: number,
  before: number | null,
  limit: number,
): Promise<RecipientRow[]> {
  const rows = await q.query<RecipientRow>(
    `SELECT * FROM recipients WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [accountId, before, limit],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), account_id: Number(r.account_id) }));
}

/** The fields of a recipient that may change (never its document, account or uuid). */
export type RecipientChanges = Partial<
  Pick<RecipientRow, 'name' | 'email' | 'pix_key' | 'pix_key_type' | 'transfer_interval' | 'active'>
>;

/** Changes the recipient's given fields; the row as it is after, null when it is not the account's. */
export async function updateRecipient(
  q: Queryable,
  accountId: number,
  id: number,
  changes: RecipientChanges,
): Promise<RecipientRow | null> {
  const columns = Object.keys(changes) as (keyof RecipientChanges)[];
  if (columns.length === 0) throw new Error('updateRecipient: no change given');
  const sets = columns.map((c, i) => `${c} = $${i + 3}`);
  const [row] = await q.query<RecipientRow>(
    `UPDATE recipients SET ${sets.join(', ')}
      WHERE id = $1 AND account_id = $2 RETURNING *`,
    [id, accountId, ...columns.map((c) => changes[c])],
  );
  return row ? { ...row, id: Number(row.id), account_id: Number(row.account_id) } : null;
}
