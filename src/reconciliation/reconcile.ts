import { setTimeout as rest } from 'node:timers/promises';
import type { PixApiClient } from '../payment-standards/index.js';
import { creditedPaidBetween } from '../pix/index.js';
import {
  type Discrepancy,
  discrepanciesOfRun,
  recordDiscrepancies,
  resolveListed,
} from './discrepancies.data.js';
import { type MatchDeps, matchPage } from './match.js';
import { MAX_PER_PAGE, receivedPages } from './psp-pages.js';
import { advanceRun, type Counts, finishRun, listedOf, type Run, recordListed } from './runs.data.js';

export interface ReconcileDeps extends MatchDeps {
  client: PixApiClient;
  /** Pix per GET /pix page (the standard allows 1–1000). */
  perPage?: number;
}

/** What `gateway reconcile` prints for a window. */
export interface Report extends Counts {
  from: string;
  to: string;
  discrepancies: Discrepancy[];
}

/** Credits of the gateway checked against the run's list at a time. */
const CREDITS_PER_BATCH = 1000;
/**
 * After each page the run rests for this share of the time the page took: a window of 100,000 Pix then takes
 * about half as long again, and leaves the process it shares with the API most of its CPU meanwhile
 * (docs/performance.md, "Reconciliation").
 */
const REST_PER_PAGE = 0.5;

/**
 * Reconciles a run's window from the page it had reached: each page is matched, then the run moves past it
 * together with the page's end-to-end ids (one transaction), so a worker that dies between pages leaves the
 * run to resume at the first page not recorded (a page applied twice changes nothing the second time). Once
 * the PSP's list is read, the gateway's credits of the window it did not list are missing at the PSP.
 * Returns null when another worker took the run over meanwhile.
 */
export async function runWindow(deps: ReconcileDeps, run: Run): Promise<Report | null> {
  const { db } = deps;
  const perPage = deps.perPage ?? MAX_PER_PAGE;
  let pageStarted = performance.now();
  for await (const { page, pix } of receivedPages(
    deps.client,
    run.windowStart,
    run.windowEnd,
    run.nextPage,
    perPage,
  )) {
    const { counts, found } = await matchPage(deps, pix);
    const e2eids = pix.map((p) => p.endToEndId);
    const kept = await db.tx(async (tx) => {
      if (!(await advanceRun(tx, run.id, page, counts))) return false;
      await recordListed(tx, run.id, e2eids);
      await recordDiscrepancies(tx, run.id, found);
      await resolveListed(tx, e2eids);
      return true;
    });
    if (!kept) return null;
    await rest((performance.now() - pageStarted) * REST_PER_PAGE);
    pageStarted = performance.now();
  }
  await findMissing(deps, run);
  const counts = await db.tx((tx) => finishRun(tx, run.id));
  return {
    from: run.windowStart.toISOString(),
    to: run.windowEnd.toISOString(),
    ...counts,
    discrepancies: await discrepanciesOfRun(db, run.id),
  };
}

/** The gateway's credits paid in the window that no page listed, a batch at a time. */
async function findMissing(deps: ReconcileDeps, run: Run): Promise<void> {
  let after: { paidAt: Date; e2eid: string } | null = null;
  for (;;) {
    const credits = await creditedPaidBetween(
      deps.db,
      run.windowStart,
      run.windowEnd,
      after,
      CREDITS_PER_BATCH,
    );
    if (credits.length === 0) return;
    const listed = await listedOf(
      deps.db,
      run.id,
      credits.map((c) => c.e2eid),
    );
    const missing = credits
      .filter((c) => !listed.has(c.e2eid))
      .map(
        (c): Discrepancy => ({
          kind: 'missing_at_psp',
          e2eid: c.e2eid,
          txid: c.txid,
          amount: c.amount,
          detail: `credited as paid at ${c.paidAt.toISOString()}; the PSP does not list it`,
        }),
      );
    await recordDiscrepancies(deps.db, run.id, missing);
    const last: { paidAt: Date; e2eid: string } = credits[credits.length - 1]!;
    after = { paidAt: last.paidAt, e2eid: last.e2eid };
  }
}
