import type { Queryable } from '../platform/db/db.js';

export type Schedule = 'frequent' | 'daily' | 'manual';

/** One window of received Pix being reconciled, and how far it got. */
export interface Run {
  id: number;
  schedule: Schedule;
  windowStart: Date;
  windowEnd: Date;
  nextPage: number;
}

/** What a page (or the whole run) added up to. */
export interface Counts {
  received: number;
  matched: number;
  creditedNow: number;
  refundedNow: number;
}

/** A worker holds a run this long past its last page; then another may take it over (the first one died). */
export const LEASE_SECONDS = 300;

const RUN = `id, schedule, window_start AS "windowStart", window_end AS "windowEnd", next_page AS "nextPage"`;
const asRun = (r: Run): Run => ({ ...r, id: Number(r.id) });

/** A scheduled window, created once however many workers ask (`schedule`, start and end are its key). */
export async function ensureRun(db: Queryable, schedule: Schedule, start: Date, end: Date): Promise<void> {
  await db.query(
    `INSERT INTO reconciliation_runs (schedule, window_start, window_end) VALUES ($1, $2, $3)
     ON CONFLICT (schedule, window_start, window_end) WHERE schedule <> 'manual' DO NOTHING`,
    [schedule, start, end],
  );
}

/** An operator's run, held by the calling process from the start. */
export async function startManualRun(db: Queryable, start: Date, end: Date): Promise<Run> {
  const [row] = await db.query<Run>(
    `INSERT INTO reconciliation_runs (schedule, window_start, window_end, leased_until)
     VALUES ('manual', $1, $2, now() + make_interval(secs => $3)) RETURNING ${RUN}`,
    [start, end, LEASE_SECONDS],
  );
  return asRun(row!);
}

/**
 * The oldest unfinished run nobody holds (never started, or its worker's lease ran out), now held by the
 * caller; null when there is none. Several workers asking at once get different runs.
 */
export async function claimRun(db: Queryable): Promise<Run | null> {
  const [row] = await db.query<Run>(
    `UPDATE reconciliation_runs SET leased_until = now() + make_interval(secs => $1)
      WHERE id = (SELECT id FROM reconciliation_runs
                   WHERE finished_at IS NULL AND (leased_until IS NULL OR leased_until < now())
                   ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING ${RUN}`,
    [LEASE_SECONDS],
  );
  return row ? asRun(row) : null;
}

/**
 * A page applied: the run moves past it and its lease is renewed, in the transaction of the page's end-to-end
 * ids. False when the run is no longer where this worker left it (another took it over): it must stop.
 */
export async function advanceRun(
  db: Queryable,
  runId: number,
  page: number,
  counts: Counts,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE reconciliation_runs
        SET next_page = $3, received = received + $4, matched = matched + $5,
            credited_now = credited_now + $6, refunded_now = refunded_now + $7,
            leased_until = now() + make_interval(secs => $8)
      WHERE id = $1 AND next_page = $2 AND finished_at IS NULL RETURNING 1`,
    [
      runId,
      page,
      page + 1,
      counts.received,
      counts.matched,
      counts.creditedNow,
      counts.refundedNow,
      LEASE_SECONDS,
    ],
  );
  return rows.length > 0;
}

/** The end-to-end ids a page listed, kept until the run ends. */
export async function recordListed(db: Queryable, runId: number, e2eids: string[]): Promise<void> {
  await db.query(
    `INSERT INTO reconciliation_listed (run_id, e2eid) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
    [runId, e2eids],
  );
}

/** Which of these end-to-end ids the run's pages listed. */
export async function listedOf(db: Queryable, runId: number, e2eids: string[]): Promise<Set<string>> {
  const rows = await db.query<{ e2eid: string }>(
    'SELECT e2eid FROM reconciliation_listed WHERE run_id = $1 AND e2eid = ANY($2::text[])',
    [runId, e2eids],
  );
  return new Set(rows.map((r) => r.e2eid));
}

/** The run is done: its totals are final and its list of end-to-end ids goes. */
export async function finishRun(db: Queryable, runId: number): Promise<Counts> {
  await db.query('DELETE FROM reconciliation_listed WHERE run_id = $1', [runId]);
  const [row] = await db.query<Counts>(
    `UPDATE reconciliation_runs SET finished_at = now(), leased_until = NULL WHERE id = $1
     RETURNING received, matched, credited_now AS "creditedNow", refunded_now AS "refundedNow"`,
    [runId],
  );
  return row!;
}

/** A run that failed (the PSP unreachable) is tried again by any worker after `seconds`. */
export async function releaseRun(db: Queryable, runId: number, seconds: number): Promise<void> {
  await db.query(
    `UPDATE reconciliation_runs SET leased_until = now() + make_interval(secs => $2)
      WHERE id = $1 AND finished_at IS NULL`,
    [runId, seconds],
  );
}

/** Finished runs past `days` are deleted (their discrepancies stay). */
export async function pruneRuns(db: Queryable, days: number): Promise<void> {
  await db.query(`DELETE FROM reconciliation_runs WHERE finished_at < now() - make_interval(days => $1)`, [
    days,
  ]);
}
