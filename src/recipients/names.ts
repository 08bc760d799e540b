import type { Queryable } from '../platform/db/db.js';

/** Recipients by internal id: their public id and name (a refund's refusal names the one who lacks money). */
export async function recipientNames(
  q: Queryable,
  ids: number[],
): Promise<Map<number, { id: string; name: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; uuid: string; name: string }>(
    'SELECT id, uuid, name FROM recipients WHERE id = ANY($1::bigint[])',
    [ids],
  );
  return new Map(rows.map((r) => [Number(r.id), { id: r.uuid, name: r.name }]));
}
