import type { Db, Queryable } from '../platform/db/db.js';
import { MONTHS_AHEAD } from '../platform/db/month-partitions.js';

/** Events (the facts) are kept at least this long, whatever a prune asks (at least 30 days). */
export const MIN_EVENT_DAYS = 30;
/** How often the workers run the retention prune. */
export const RETENTION_EVERY_MS = 24 * 60 * 60 * 1000;
/** How long a drop waits for the tables' lock before giving up until the next run (what waits behind it). */
const DROP_LOCK_TIMEOUT = '1s';
const DROP_ATTEMPTS = 3;

const TABLES = ['notification_attempts', 'notification_deliveries', 'notification_events'] as const;

export interface MonthPruned {
  /** `YYYY-MM`, or `legacy` for the history recorded before the tables were partitioned */
  month: string;
  /** rows as PostgreSQL's statistics estimated them just before the drop (counting would read the month) */
  facts: number;
  deliveries: number;
  attempts: number;
}

export interface MonthKept {
  month: string;
  reason: string;
}

export interface PruneResult {
  before: string;
  dropped: MonthPruned[];
  kept: MonthKept[];
}

interface Partition {
  table: string;
  parent: (typeof TABLES)[number];
  /** the month's number (notification_month), or null for a legacy partition */
  month: number | null;
  label: string;
  rows: number;
}

/**
 * Creates the partitions of this month and the next MONTHS_AHEAD that do not exist yet (the migration made the
 * first ones; the workers run this every hour). Returns how many months were created.
 */
export async function ensureNotificationPartitions(db: Queryable): Promise<number> {
  const [row] = await db.query<{ made: number }>(
    'SELECT notification_partitions_ensure(partition_month(now()), partition_month(now()) + $1) AS made',
    [MONTHS_AHEAD],
  );
  return row!.made;
}

/**
 * Removes notification history older than `before` by dropping whole months: a month's facts, deliveries and
 * attempts share its partitions (a delivery is numbered in its fact's month), and a month goes once all of it
 * is older than `before` and than MIN_EVENT_DAYS (a fact is the account's event), none of its deliveries is
 * pending and none of its facts waits in the outbox; otherwise it is kept and the result says why. The
 * history recorded before the tables were partitioned (`legacy`) goes the same way, once its newest row is
 * old enough. A drop holds the three tables' lock for milliseconds and waits at most a second for it (else the
 * month is tried again, three times in all, then kept until the next run). What goes can no longer be resent or read in the panel.
 */
export async function pruneNotifications(db: Db, before: Date): Promise<PruneResult> {
  const eventsKeptFrom = new Date(Date.now() - MIN_EVENT_DAYS * 86_400_000);
  const cutoff = before < eventsKeptFrom ? before : eventsKeptFrom;
  const result: PruneResult = { before: cutoff.toISOString(), dropped: [], kept: [] };
  const partitions = await listPartitions(db);
  const months = new Map<string, Partition[]>();
  for (const p of partitions) months.set(p.label, [...(months.get(p.label) ?? []), p]);
  // legacy first: the months' facts may still be pointed at by legacy deliveries
  const order = [...months.keys()].sort((a, b) =>
    a === 'legacy' ? -1 : b === 'legacy' ? 1 : a.localeCompare(b),
  );
  for (const label of order) {
    const parts = months.get(label)!;
    const month = parts[0]!.month;
    if (month !== null && !(await monthEndsBefore(db, month, cutoff))) continue;
    const outcome = await dropMonth(db, parts, cutoff);
    if (outcome) {
      result.kept.push({ month: label, reason: outcome });
      continue;
    }
    const rows = (parent: Partition['parent']) => parts.find((p) => p.parent === parent)?.rows ?? 0;
    result.dropped.push({
      month: label,
      facts: rows('notification_events'),
      deliveries: rows('notification_deliveries'),
      attempts: rows('notification_attempts'),
    });
  }
  return result;
}

/**
 * Drops a month's partitions under the three tables' lock, unless a reason to keep them is found there; the
 * lock is waited for at most DROP_LOCK_TIMEOUT, DROP_ATTEMPTS times (a long read of the tables holds it).
 * Returns the reason it was kept, or null when dropped.
 */
async function dropMonth(db: Db, parts: Partition[], cutoff: Date): Promise<string | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.tx(async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = '${DROP_LOCK_TIMEOUT}'`);
        await tx.query(`LOCK TABLE ${TABLES.join(', ')} IN ACCESS EXCLUSIVE MODE`);
        const why = await reasonToKeep(tx, parts, cutoff);
        if (why) return why;
        for (const p of parts) await tx.query(`DROP TABLE ${quoteIdent(p.table)}`);
        return null;
      });
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err;
      if (attempt === DROP_ATTEMPTS) return 'the tables were busy: tried again at the next run';
    }
  }
}

async function listPartitions(db: Db): Promise<Partition[]> {
  const rows = await db.query<{ table: string; parent: Partition['parent']; rows: number }>(
    `SELECT c.relname AS table, p.relname AS parent, greatest(c.reltuples, 0)::bigint AS rows
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname = ANY ($1::text[]) AND p.relnamespace = current_schema()::regnamespace`,
    [TABLES],
  );
  return rows.flatMap((r): Partition[] => {
    const monthly = /_p(\d{4})(\d{2})$/.exec(r.table);
    if (monthly) {
      const month = (Number(monthly[1]) - 2000) * 12 + Number(monthly[2]) - 1;
      return [{ ...r, month, label: `${monthly[1]}-${monthly[2]}` }];
    }
    if (/_legacy(_high)?$/.test(r.table)) return [{ ...r, month: null, label: 'legacy' }];
    return [];
  });
}

async function monthEndsBefore(db: Db, month: number, cutoff: Date): Promise<boolean> {
  const [row] = await db.query<{ old: boolean }>('SELECT partition_month_start($1 + 1) <= $2 AS old', [
    month,
    cutoff,
  ]);
  return row!.old;
}

/** Why a month's partitions must stay, read under the tables' lock, or null when they may go. */
async function reasonToKeep(tx: Queryable, parts: Partition[], cutoff: Date): Promise<string | null> {
  const table = (parent: Partition['parent']) => parts.find((p) => p.parent === parent)?.table;
  const deliveries = table('notification_deliveries');
  const events = table('notification_events');
  const month = parts[0]!.month;
  if (deliveries) {
    const [pending] = await tx.query(
      `SELECT 1 FROM ${quoteIdent(deliveries)}
        WHERE (status = 'PENDING' AND ticket IS NOT NULL) OR (status = 'PENDING' AND ticket IS NULL) LIMIT 1`,
    );
    if (pending) return 'a delivery is still pending';
  }
  if (month === null) {
    // the legacy history has no month: its newest row says its age
    for (const p of parts) {
      const [young] = await tx.query(`SELECT 1 FROM ${quoteIdent(p.table)} WHERE created_at >= $1 LIMIT 1`, [
        cutoff,
      ]);
      if (young) return 'it holds history younger than the retention';
    }
  }
  if (events) {
    const [waiting] = await tx.query(
      `SELECT 1 FROM notification_outbox o
        WHERE EXISTS (SELECT 1 FROM ${quoteIdent(events)} e WHERE e.id = o.event_id) LIMIT 1`,
    );
    if (waiting) return 'a fact still waits in the outbox';
    // a fact of a month is pointed at only by its month's deliveries, or by legacy ones
    const [legacy] = await tx.query<{ t: string | null }>(
      "SELECT to_regclass('notification_deliveries_legacy')::text AS t",
    );
    if (month !== null && legacy!.t !== null) {
      const [pointed] = await tx.query(
        `SELECT 1 FROM notification_deliveries_legacy d
          WHERE d.event_id >= partition_month_uuid($1) AND d.event_id < partition_month_uuid($1 + 1) LIMIT 1`,
        [month],
      );
      if (pointed) return 'deliveries recorded before the monthly partitions still point at its facts';
    }
  }
  return null;
}

function quoteIdent(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`unexpected partition name ${name}`);
  return `"${name}"`;
}
