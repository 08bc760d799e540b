import type { Queryable, QueryOptions } from '../db/db.js';

/** The one row a lookup finds, or null when it finds none: a read by a key that may name nothing. */
export async function rowOrNull<T>(
  q: Queryable,
  text: string,
  params?: readonly unknown[],
  options?: QueryOptions,
): Promise<T | null> {
  const [row] = await q.query<T>(text, params, options);
  return row ?? null;
}
