import type { Queryable } from './db.js';

/**
 * Months made ahead of the current one for every table partitioned by month: a month with no partition
 * refuses its table's inserts, so the workers keep this many ready (every hour) and log when they cannot.
 */
export const MONTHS_AHEAD = 3;

/**
 * Creates the partitions of this month and the next MONTHS_AHEAD that do not exist yet, for tables ranged by a
 * month-coded bigint (`month_partitions_ensure`, migration 271). Returns how many partitions were created.
 */
export async function ensureMonthPartitions(db: Queryable, parents: readonly string[]): Promise<number> {
  const [row] = await db.query<{ made: number }>(
    `SELECT coalesce(sum(month_partitions_ensure(t, partition_month(now()), partition_month(now()) + $2)), 0)::int
            AS made
       FROM unnest($1::text[]) AS t`,
    [parents, MONTHS_AHEAD],
  );
  return row!.made;
}
