import pLimit from 'p-limit';
import { payoutsHeldSql } from '../../accounts/index.js';
import type { Db } from '../../platform/db/db.js';
import { notFound } from '../../platform/errors/app-error.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { payoutProviderSeconds } from '../../platform/observability/metrics.js';
import type { WithdrawalRow } from '../data.js';
import { transition, transitionMany } from '../state.js';
import {
  type Headers,
  type PayoutOrder,
  type PayoutProvider,
  ProviderUnavailable,
  type Submitted,
} from './provider.js';

/** A withdrawal the provider may get: one that needs no approval, or was approved. */
export const SUBMITTABLE = `(approval_status IS NULL OR approval_status = 'approved')`;

/** Provider requests of one submission batch in flight at once. */
const REQUESTS_IN_FLIGHT = 8;
/** Orders per request to a provider with a batch API. */
const ORDERS_PER_REQUEST = 100;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Submits PENDING withdrawals to the provider and moves them to PROCESSING. Safe to run again at any point
 * (job retries, a worker killed mid-way): the provider dedupes by reference (the withdrawal uuid), and the
 * move to PROCESSING is guarded. Throws the first submission error after the others were handled, so the
 * job is retried.
 */
export async function submitPayouts(
  db: Db,
  provider: PayoutProvider,
  withdrawalIds: number[],
): Promise<void> {
  // Claim: from here an order may reach the provider, so a cancel is refused (state.ts checks this).
  // The first claim also records which provider the withdrawal goes to (its callbacks and read-backs).
  // A withdrawal that needs approval is claimed only once approved (the lock re-reads a decision racing this).
  // One of an account whose payouts are held meanwhile (a hold, a suspension) is never claimed: it waits in
  // AWAITING_REVIEW, however its job came to be queued (a cashout that raced the hold).
  const claimed = await db.query<WithdrawalRow & { first_claim: boolean }>(
    `WITH held AS (
       UPDATE withdrawals h SET status = 'AWAITING_REVIEW', updated_at = now()
        WHERE h.id = ANY($1::bigint[]) AND h.status = 'PENDING' AND h.submitting_at IS NULL
          AND h.review_decided_by IS NULL AND ${payoutsHeldSql('h.account_id')}
       RETURNING h.id),
     before AS (
       SELECT id, submitting_at FROM withdrawals
        WHERE id = ANY($1::bigint[]) AND status = 'PENDING' AND ${SUBMITTABLE}
          AND id NOT IN (SELECT id FROM held)
          -- (one an operator released is theirs to send, hold or not)
          AND (submitting_at IS NOT NULL OR review_decided_by IS NOT NULL
               OR NOT ${payoutsHeldSql('withdrawals.account_id')})
        ORDER BY id FOR UPDATE)
     UPDATE withdrawals w SET submitting_at = COALESCE(w.submitting_at, now()),
            provider = CASE WHEN w.submitting_at IS NULL THEN $2 ELSE w.provider END
       FROM before WHERE w.id = before.id
     RETURNING w.*, before.submitting_at IS NULL AS first_claim`,
    [withdrawalIds, provider.name],
  );
  const submitted: ({ id: number } & Submitted)[] = [];
  let failure: unknown;
  // a provider with a batch API gets the orders ORDERS_PER_REQUEST at a time, any other one by one; either
  // way a few requests travel at once, so one slow answer does not hold the whole batch
  const sorted = claimed.sort((a, b) => a.id - b.id);
  const requests = provider.submitBatch ? chunks(sorted, ORDERS_PER_REQUEST) : sorted.map((w) => [w]);
  const inFlight = pLimit(REQUESTS_IN_FLIGHT);
  await Promise.all(
    requests.map((group) =>
      inFlight(async () => {
        const timer = payoutProviderSeconds.startTimer();
        try {
          const orders = group.map(orderOf);
          const sent = provider.submitBatch
            ? await provider.submitBatch(orders)
            : [await provider.submit(orders[0]!)];
          timer({ outcome: 'ok' });
          group.forEach((w, i) => {
            submitted.push({ id: w.id, ...sent[i]! });
          });
        } catch (err) {
          timer({ outcome: 'error' });
          failure ??= err;
          // Certainly not received, and no earlier attempt may have reached it: cancellable again.
          const unsent = group.filter((w) => err instanceof ProviderUnavailable && w.first_claim);
          if (unsent.length > 0) {
            await db.query(
              `UPDATE withdrawals SET submitting_at = NULL WHERE id = ANY($1::bigint[]) AND status = 'PENDING'`,
              [unsent.map((w) => w.id)],
            );
          }
        }
      }),
    ),
  );
  if (submitted.length > 0) {
    submitted.sort((a, b) => a.id - b.id);
    await db.tx(async (tx) => {
      await transitionMany(
        tx,
        submitted.map((s) => ({ id: s.id, externalId: s.externalId })),
        'submit',
      );
      // refused for good by the provider: it was sent and it failed (funds back, withdrawal.rejected)
      for (const s of submitted) if (s.rejected) await transition(tx, s.id, 'reject', s.externalId);
    });
  }
  if (failure) throw failure;
}

function orderOf(w: WithdrawalRow): PayoutOrder {
  return { reference: w.uuid, amountCents: w.net_amount, pixKey: w.pix_key, pixKeyType: w.pix_key_type };
}

export const RECONCILE_EVERY_MS = 5_000;
export const REQUEUE_EVERY_MS = 15_000;
/** A PENDING withdrawal this old has outlived its job's first tries (or its job is gone): queue it again. */
const REQUEUE_AFTER_SECONDS = 30;

/**
 * Nothing waits forever: PENDING withdrawals older than REQUEUE_AFTER_SECONDS (their job may have failed for
 * good, or been lost) go into one more submission job, at most one such job queued at a time (singleton key).
 * Submission is idempotent by reference, so a withdrawal whose own job is still retrying is safe to include.
 * Returns how many were queued.
 */
export async function requeueStalePending(
  db: Db,
  queue: Queue,
  limit = 500,
  olderThanSeconds = REQUEUE_AFTER_SECONDS,
): Promise<number> {
  const rows = await db.query<{ id: number }>(
    `SELECT id FROM withdrawals
      WHERE status = 'PENDING' AND ${SUBMITTABLE} AND created_at < now() - make_interval(secs => $1)
      ORDER BY id LIMIT $2`,
    [olderThanSeconds, limit],
  );
  if (rows.length === 0) return 0;
  await db.tx((tx) =>
    queue.send(
      tx,
      'payouts.submit',
      { withdrawalIds: rows.map((r) => r.id) },
      { singletonKey: 'payouts.requeue' },
    ),
  );
  return rows.length;
}

/**
 * For providers that are read back rather than trusted by callback: every PROCESSING withdrawal of the
 * provider, oldest first, checked at the provider and moved to COMPLETED or FAILED. Returns how many moved.
 */
export async function reconcilePayouts(db: Db, provider: PayoutProvider, limit = 100): Promise<number> {
  if (!provider.check) return 0;
  const rows = await db.query<WithdrawalRow>(
    `SELECT * FROM withdrawals WHERE status = 'PROCESSING' AND provider = $1 ORDER BY updated_at, id LIMIT $2`,
    [provider.name, limit],
  );
  let moved = 0;
  for (const w of rows) if (await settleFromProvider(db, provider, w)) moved++;
  return moved;
}

/** A withdrawal PROCESSING this long is read back from its provider, whatever its callbacks did. */
export const OVERDUE_PROCESSING_MINUTES = 30;
export const OVERDUE_CHECK_EVERY_MS = 60_000;

/**
 * Withdrawals PROCESSING for over OVERDUE_PROCESSING_MINUTES (a callback lost, a read-back loop stopped), oldest
 * first, whichever provider they went to: each is read back and settled from the provider's answer. Returns
 * how many moved.
 */
export async function settleOverdue(
  db: Db,
  providerOf: (name: string) => PayoutProvider | undefined,
  limit = 100,
): Promise<number> {
  const rows = await db.query<WithdrawalRow>(
    `SELECT * FROM withdrawals
      WHERE status = 'PROCESSING' AND updated_at < now() - make_interval(mins => $1)
      ORDER BY updated_at, id LIMIT $2`,
    [OVERDUE_PROCESSING_MINUTES, limit],
  );
  let moved = 0;
  for (const w of rows) {
    const provider = providerOf(w.provider);
    if (provider?.check && (await settleFromProvider(db, provider, w))) moved++;
  }
  return moved;
}

/**
 * One PROCESSING withdrawal as its provider reports it: COMPLETED or FAILED through the state machine (a
 * callback that got there first leaves nothing to do). One the provider never received (its submission timed
 * out before reaching it) is sent again under the same reference, which the provider accepts once: it is never
 * paid twice. True when it moved.
 */
async function settleFromProvider(db: Db, provider: PayoutProvider, w: WithdrawalRow): Promise<boolean> {
  const order = orderOf(w);
  const report = await provider.check!(order);
  if (report.state === 'PROCESSING') return false;
  if (report.state === 'MISSING') {
    const sent = await provider.submit(order);
    if (!sent.rejected) return false;
    await db.tx((tx) => transition(tx, w.id, 'reject', sent.externalId));
    return true;
  }
  const result = await db.tx((tx) =>
    transition(tx, w.id, report.state === 'COMPLETED' ? 'complete' : 'reject', report.externalId),
  );
  return result.changed;
}

export interface CallbackOutcome {
  withdrawal: WithdrawalRow;
  changed: boolean;
}

/**
 * The provider's callback, verified over its raw bytes, drives PROCESSING → COMPLETED or FAILED. A repeated
 * or late callback (the withdrawal is no longer PROCESSING) changes nothing.
 */
export async function handlePayoutCallback(
  db: Db,
  provider: PayoutProvider,
  rawBody: Buffer,
  headers: Headers,
): Promise<CallbackOutcome> {
  const report = await provider.verifyCallback(rawBody, headers);
  const [row] = await db.query<{ id: number }>(
    'SELECT id FROM withdrawals WHERE uuid = $1::uuid AND provider = $2',
    [report.reference, provider.name],
  );
  if (!row) throw notFound(`No withdrawal with reference ${report.reference}`);
  const name = report.result === 'COMPLETED' ? 'complete' : 'reject';
  const result = await db.tx(async (tx) => {
    const first = await transition(tx, row.id, name, report.externalId);
    const current = first.withdrawal;
    if (first.changed || current?.status !== 'PENDING' || !current.submitting_at) return first;
    // The provider reports on an order whose submission we have not recorded yet (its callback overtook
    // our commit): it did receive it, so record PROCESSING first, then the result.
    await transition(tx, row.id, 'submit', report.externalId);
    return transition(tx, row.id, name, report.externalId);
  });
  return { withdrawal: result.withdrawal!, changed: result.changed };
}
