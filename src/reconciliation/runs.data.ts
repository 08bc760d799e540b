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

/** `gateway reconcile --from --to`: an operator's run, held by the calling process from the start. */
export async function startManualRun(db: Queryable, start: Date, end: Date): Promise<Run> {
  const [row] = await db.query<Run>(
    `INSERT INTO reconciliation_runs (schedule, window_start, window_end, leased_until, requested_by)
     VALUES ('manual', $1, $2, now() + make_interval(secs => $3), 'cli') RETURNING ${RUN}`,
    [start, end, LEASE_SECONDS],
  );
  return asRun(row!);
}

/**
 * The runs asked for that are not finished: how many, and one of the same window if there is. Requests are taken
 * one at a time (a transaction lock), so two asking for the same window at once get the same run.
 */
export async function pendingManualRuns(
  tx: Queryable,
  start: Date,
  end: Date,
): Promise<{ count: number; sameWindow: number | null }> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('reconciliation_runs.manual'))`);
  const [row] = await tx.query<{ count: number; same: string | null }>(
    `SELECT count(*)::int AS count,
            min(id) FILTER (WHERE window_start = $1 AND window_end = $2) AS same
       FROM reconciliation_runs WHERE schedule = 'manual' AND finished_at IS NULL`,
    [start, end],
  );
  return { count: row!.count, sameWindow: row!.same === null ? null : Number(row!.same) };
}

/** A run asked for from the console: held by nobody, so the first worker that looks takes it. */
export async function requestManualRun(
  db: Queryable,
  start: Date,
  end: Date,
  requestedBy: string,
): Promise<number> {
  const [row] = await db.query<{ id: string }>(
    `INSERT INTO reconciliation_runs (schedule, window_start, window_end, requested_by)
     VALUES ('manual', $1, $2, $3) RETURNING id`,
    [start, end, requestedBy],
  );
  return Number(row!.id);
}

/** Where a run is: waiting for a worker, running, failed and waiting to be tried again, or finished. */
export type RunStatus = 'waiting' | 'running' | 'retrying' | 'finished';

/** A run as the console lists it. */
export interface RunView extends Counts {
  id: number;
  schedule: Schedule;
  from: string;
  to: string;
  status: RunStatus;
  requestedBy: string | null;
  createdAt: string;
  finishedAt: string | null;
  /** Why its last try failed, while it waits to be tried again. */
  lastError: string | null;
  /** The discrepancies it found (new ones and ones found before), fixed when it finishes. */
  discrepancies: number;
}

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const RUN_VIEW = `r.id, r.schedule, ${iso('r.window_start')} AS "from", ${iso('r.window_end')} AS "to",
  CASE WHEN r.finished_at IS NOT NULL THEN 'finished' WHEN r.last_error IS NOT NULL THEN 'retrying'
       WHEN r.leased_until > now() THEN 'running' ELSE 'waiting' END AS status,
  r.requested_by AS "requestedBy", ${iso('r.created_at')} AS "createdAt",
  ${iso('r.finished_at')} AS "finishedAt", r.last_error AS "lastError",
  r.received, r.matched, r.credited_now AS "creditedNow", r.refunded_now AS "refundedNow",
  coalesce(r.discrepancies_found,
    (SELECT count(*)::int FROM reconciliation_discrepancies d WHERE d.last_run_id = r.id)) AS discrepancies`;

/** The newest runs first (scheduled and asked for; of one schedule), or one run by id. */
export async function listRuns(
  db: Queryable,
  options: { id?: number; schedule?: Schedule; limit?: number } = {},
): Promise<RunView[]> {
  const rows = await db.query<RunView>(
    `SELECT ${RUN_VIEW} FROM reconciliation_runs r
      WHERE ($1::bigint IS NULL OR r.id = $1) AND ($3::text IS NULL OR r.schedule = $3)
      ORDER BY r.id DESC LIMIT $2`,
    [options.id ?? null, options.limit ?? 50, options.schedule ?? null],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
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
            leased_until = now() + make_interval(secs => $8), last_error = NULL
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
    `UPDATE reconciliation_runs SET finished_at = now(), leased_until = NULL, last_error = NULL,
            discrepancies_found = (SELECT count(*) FROM reconciliation_discrepancies WHERE last_run_id = $1)
      WHERE id = $1
     RETURNING received, matched, credited_now AS "creditedNow", refunded_now AS "refundedNow"`,
    [runId],
  );
  return row!;
}

/** A run that failed (the PSP unreachable) is tried again by any worker after `seconds`; why is kept meanwhile. */
export async function releaseRun(
  db: Queryable,
  runId: number,
  seconds: number,
  error: string,
): Promise<void> {
  await db.query(
    `UPDATE reconciliation_runs SET leased_until = now() + make_interval(secs => $2), last_error = $3
      WHERE id = $1 AND finished_at IS NULL`,
    [runId, seconds, error.slice(0, 500)],
  );
}

/** Finished runs past `days` are deleted (their discrepancies stay). */
export async function pruneRuns(db: Queryable, days: number): Promise<void> {
  await db.query(`DELETE FROM reconciliation_runs WHERE finished_at < now() - make_interval(days => $1)`, [
    days,
  ]);
}
