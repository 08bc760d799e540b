import { PspError } from '../payment-standards/index.js';
import { foundSince } from './discrepancies.data.js';
import { type ReconcileDeps, type Report, runWindow } from './reconcile.js';
import { claimRun, ensureRun, pruneRuns, releaseRun, startManualRun } from './runs.data.js';
import { dueWindows } from './schedule.js';

/** How often a worker looks for due windows and runs left unfinished. */
export const RECONCILE_TICK_MS = 60_000;
/** A run that failed (the PSP down) is tried again this long after. */
const RETRY_AFTER_SECONDS = 60;
const KEEP_RUNS_DAYS = 30;

export interface Logs {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * One worker's turn: the windows due now are created (once, whoever creates them), then every run nobody
 * holds is run (`runPending`).
 */
export async function reconcileDue(deps: ReconcileDeps, log: Logs, now = new Date()): Promise<number> {
  for (const w of dueWindows(now)) await ensureRun(deps.db, w.schedule, w.start, w.end);
  await pruneRuns(deps.db, KEEP_RUNS_DAYS);
  return runPending(deps, log);
}

/**
 * Every run nobody holds, taken and run to its end: new windows, runs asked for from the console, and runs
 * whose worker died mid-window (resumed at their next page). A run that fails is left for any worker to try
 * again a minute later, with why.
 */
export async function runPending(deps: ReconcileDeps, log: Logs): Promise<number> {
  let done = 0;
  const failed: Error[] = [];
  // a run that fails is released for a minute and not taken again in this turn: the others are still tried (the
  // PSP may refuse one window and answer the next; and one failing first must not starve those behind it). A PSP
  // that gave no answer at all (down, unreachable, TLS refused) ends the turn: the others would only wait for it
  // too, and the next turn's first run finds out when it is back, the others following in that turn.
  for (let run = await claimRun(deps.db); run; run = await claimRun(deps.db)) {
    const started = await databaseNow(deps.db);
    try {
      const report = await runWindow(deps, run);
      if (!report) continue;
      done++;
      const { discrepancies, ...counts } = report;
      const fresh = discrepancies.length > 0 ? await foundSince(deps.db, run.id, started) : 0;
      const summary = {
        run: run.id,
        schedule: run.schedule,
        ...counts,
        discrepancies: discrepancies.length,
        newDiscrepancies: fresh,
      };
      // said as a warning once, when first found: every later run over the same window finds them again
      if (fresh > 0) log.warn(summary, 'reconciliation found new discrepancies');
      else log.info(summary, 'reconciliation done');
    } catch (err) {
      await releaseRun(deps.db, run.id, RETRY_AFTER_SECONDS, messageOf(err));
      // which run, over which window: the PSP's error alone does not say (its own message follows as the cause)
      failed.push(
        new Error(
          `run ${run.id} (${run.schedule}, ${run.windowStart.toISOString()} to ${run.windowEnd.toISOString()})`,
          { cause: err },
        ),
      );
      if (err instanceof PspError && err.status === null) break;
    }
  }
  if (failed.length === 1) throw failed[0];
  if (failed.length > 1) {
    throw new Error(`${failed.length} runs failed; the first: ${failed[0]!.message}`, {
      cause: (failed[0] as Error & { cause: unknown }).cause,
    });
  }
  return done;
}

/** `gateway reconcile --from --to`: the window reconciled now, by the calling process. */
export async function reconcileWindow(deps: ReconcileDeps, from: Date, to: Date): Promise<Report> {
  const run = await startManualRun(deps.db, from, to);
  try {
    const report = await runWindow(deps, run);
    if (!report) throw new Error(`reconciliation run ${run.id} was taken over by another process`);
    return report;
  } catch (err) {
    await releaseRun(deps.db, run.id, RETRY_AFTER_SECONDS, messageOf(err));
    throw err;
  }
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function databaseNow(db: ReconcileDeps['db']): Promise<Date> {
  const [row] = await db.query<{ now: Date }>('SELECT now() AS now');
  return row!.now;
}
