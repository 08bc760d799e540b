import { BCB_PROCESSOR } from '../pix/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, conflict, notFound, validation } from '../platform/errors/app-error.js';
import type { Queue } from '../platform/jobs/queue.js';
import { SANDBOX_PROCESSOR, salesByProcessorRefs } from '../sales/index.js';
import {
  discrepancyById,
  listDiscrepancies,
  resolveByOperator,
  type StoredDiscrepancy,
} from './discrepancies.data.js';
import { listRuns, pendingManualRuns, type RunView, requestManualRun, type Schedule } from './runs.data.js';
import { parseInstant, windowProblem } from './window.js';

const MAX_NOTE = 500;
/** Runs asked for that may wait or run at once: each reads the PSP's whole window, page by page. */
const MAX_PENDING_RUNS = 5;

/** A discrepancy with the sale its txid names, and whose it is (null when it names none). */
export type DiscrepancyOfSale = StoredDiscrepancy & { saleId: number | null; accountId: number | null };

/**
 * Reconciliation as the console reaches it: the runs (scheduled and asked for), a run asked for over a window
 * (run by the workers, as the scheduled ones are), and the discrepancies kept, resolved by an operator's note.
 * Each change takes the caller's audit entry in its own transaction.
 */
export class Reconciliation {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    /** Whether the gateway reconciles with a PSP at all (PIX_PROCESSOR=bcb). */
    readonly enabled: boolean,
  ) {}

  /** The 50 newest runs, or of one schedule (the frequent ones, 144 a day, would hide the others). */
  runs(schedule?: Schedule): Promise<RunView[]> {
    return listRuns(this.db, { limit: 50, ...(schedule ? { schedule } : {}) });
  }

  /**
   * A window to reconcile now: a run nobody holds, and a job that wakes a worker for it (the workers' own turn
   * takes it within a minute if that job is lost). `from`/`to` are ISO 8601; without an offset, São Paulo time.
   */
  async requestRun(
    fromText: string,
    toText: string,
    requestedBy: string,
    audit: (tx: Queryable, run: RunView) => Promise<void>,
  ): Promise<RunView> {
    const from = parseInstant(fromText);
    if (typeof from === 'string') throw validation(`from ${from}`);
    const to = parseInstant(toText);
    if (typeof to === 'string') throw validation(`to ${to}`);
    const problem = windowProblem(from, to);
    if (problem) throw validation(problem);
    if (!this.enabled) {
      throw conflict(
        "Reconciliation with the PSP needs PIX_PROCESSOR=bcb: this gateway's Pix go through its sandbox, which keeps no list of its own to reconcile with",
      );
    }
    return this.db.tx(async (tx) => {
      const pending = await pendingManualRuns(tx, from, to);
      if (pending.sameWindow !== null) {
        // the same window asked for again while it waits or runs: that run, not a second read of the PSP
        const [same] = await listRuns(tx, { id: pending.sameWindow });
        return same!;
      }
      if (pending.count >= MAX_PENDING_RUNS) {
        throw conflict(
          `${pending.count} reconciliation runs asked for are still waiting or running: ask again once they finish`,
        );
      }
      const id = await requestManualRun(tx, from, to, requestedBy);
      await this.queue.send(tx, 'reconciliation.run', { runId: id });
      const [run] = await listRuns(tx, { id });
      await audit(tx, run!);
      return run!;
    });
  }

  /**
   * The discrepancies kept, newest first, each with the sale its txid names and that sale's account (null for a
   * Pix that names no charge): whose merchant to talk to.
   */
  async discrepancies(all: boolean): Promise<DiscrepancyOfSale[]> {
    const rows = await listDiscrepancies(this.db, { all, limit: 500 });
    const txids = [...new Set(rows.flatMap((d) => (d.txid ? [d.txid] : [])))];
    const sales = new Map<string, { id: number; accountId: number }>();
    if (txids.length > 0) {
      // a PSP's charges (Pix and boletos' cobv), and the sandbox's boletos met in a bank's return file
      for (const processor of [BCB_PROCESSOR, SANDBOX_PROCESSOR]) {
        for (const s of await salesByProcessorRefs(this.db, processor, txids)) sales.set(s.ref, s);
      }
    }
    return rows.map((d) => {
      const sale = d.txid ? sales.get(d.txid) : undefined;
      return { ...d, saleId: sale?.id ?? null, accountId: sale?.accountId ?? null };
    });
  }

  /** An open discrepancy marked resolved with what was done about it (`resolveDiscrepancy`), audited. */
  resolve(
    id: number,
    note: string,
    by: string,
    audit: (tx: Queryable, before: StoredDiscrepancy, after: StoredDiscrepancy) => Promise<void>,
  ): Promise<StoredDiscrepancy> {
    return resolveDiscrepancy(this.db, id, note, by, audit);
  }
}

/**
 * The one door for resolving a discrepancy by hand (the console's "Resolver", `gateway reconcile --resolve`): an
 * open one marked resolved with what was done about it, and `audit` in the same transaction. NOT_FOUND when there
 * is no such discrepancy, INVALID_STATUS when it is already resolved, VALIDATION_ERROR for a note of nothing.
 */
export async function resolveDiscrepancy(
  db: Db,
  id: number,
  noteText: string,
  /** An operator's e-mail, or 'cli'. */
  by: string,
  audit: (
    tx: Queryable,
    before: StoredDiscrepancy,
    after: StoredDiscrepancy,
  ) => Promise<void> = async () => {},
): Promise<StoredDiscrepancy> {
  const note = noteText.trim();
  if (!note) throw validation('note is required: what was done about the discrepancy');
  if (note.length > MAX_NOTE) throw validation(`note has at most ${MAX_NOTE} characters`);
  return db.tx(async (tx) => {
    const before = await discrepancyById(tx, id);
    if (!before) throw notFound(`No discrepancy ${id}`);
    const after = await resolveByOperator(tx, id, note, by);
    if (!after) throw new AppError('INVALID_STATUS', `Discrepancy ${id} is already resolved`);
    await audit(tx, before, after);
    return after;
  });
}
