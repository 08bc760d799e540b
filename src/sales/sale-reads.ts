import { coalescedReader } from '../platform/coalesced-reads.js';
import type { Queryable } from '../platform/db.js';
import type { PublicId } from '../platform/ids.js';
import { ownedSaleBody } from './service.js';

interface SaleJson {
  account_id: number;
  body: string;
}

/**
 * saleForAccount for the public lookup route, the lookups that arrive together answered by one query per kind
 * of id (coalescedReader), answered as saleForAccount answers.
 */
export function saleLookups(db: Queryable): (accountId: number, id: PublicId) => Promise<string> {
  const byUuid = coalescedReader<string, SaleJson>(async (uuids) => {
    const rows = await db.query<SaleJson & { uuid: string }>(
      'SELECT uuid::text AS uuid, account_id, public_json AS body FROM sales WHERE uuid = ANY($1::uuid[])',
      [uuids],
      { prepare: 'sale_json_by_uuids' },
    );
    return new Map(rows.map((r) => [r.uuid, r]));
  });
  const byId = coalescedReader<number, SaleJson>(async (ids) => {
    const rows = await db.query<SaleJson & { id: number }>(
      'SELECT id, account_id, public_json AS body FROM sales WHERE id = ANY($1::bigint[])',
      [ids],
      { prepare: 'sale_json_by_ids' },
    );
    return new Map(rows.map((r) => [r.id, r]));
  });
  return async (accountId, id) => {
    // parsePublicId lowercases uuids, as PostgreSQL prints them
    return ownedSaleBody(id.kind === 'uuid' ? await byUuid(id.uuid) : await byId(id.id), accountId);
  };
}
