import type { Queryable } from './db.js';

/**
 * Serialises transactions about one thing (a scope and an id: "credentials" of account 7) until they end,
 * without locking any row: a module counts its own rows under it without reaching for another module's table,
 * and the foreign-key checks of other writers never wait for it. Two keys hashing alike only wait for each
 * other.
 */
export async function lockForTransaction(q: Queryable, scope: string, id: number | string): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${scope}:${id}`]);
}

/** Whether a statement failed on a foreign key (the row it refers to does not exist). */
export function isForeignKeyViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23503';
}
