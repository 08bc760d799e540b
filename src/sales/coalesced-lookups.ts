import { coalescedReader } from '../platform/concurrency/coalesced-reads.js';
import type { Queryable } from '../platform/db/db.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { ownedSaleBody } from './lookup.js';

interface SaleJson {
  account_id: number;
  body: string;
}

/**
 * saleForAccount for the public lookup route, the lookups that arrive together answered by one query per kind
 * of id (coalescedReader), answered as saleForAccount answers.
 */
export function saleLookups(db: Queryable): (accountId: number, id: PublicId) => Promise<string> {
  const byUuid = coalescedReader<string, SaleJson>((uuids) => read(db, 'uuid', uuids));
  const byId = coalescedReader<number, SaleJson>((ids) => read(db, 'id', ids));
  return async (accountId, id) =>
    // parsePublicId lowercases uuids, as PostgreSQL prints them
    ownedSaleBody(id.kind === 'uuid' ? await byUuid(id.uuid) : await byId(id.id), accountId);
}

/** The sales with these uuids or ids, by the key asked for, in one prepared query per kind. */
async function read<K extends string | number>(
  db: Queryable,
  by: 'uuid' | 'id',
  keys: readonly K[],
): Promise<Map<K, SaleJson>> {
  const rows = await db.query<SaleJson & { key: K }>(
    by === 'uuid'
      ? 'SELECT uuid::text AS key, account_id, public_json AS body FROM sales WHERE uuid = ANY($1::uuid[])'
      : 'SELECT id AS key, account_id, public_json AS body FROM sales WHERE id = ANY($1::bigint[])',
    [keys],
    { prepare: by === 'uuid' ? 'sale_json_by_uuids' : 'sale_json_by_ids' },
  );
  return new Map(rows.map((r) => [r.key, r]));
}
