import { accountColumnSql } from '../accounts/index.js';
import { type Bucket, type Posting, postEntry } from '../ledger/index.js';
import type { Queryable } from '../platform/db/db.js';
import type { EventName } from '../webhooks/index.js';
import { type NotificationFact, recordNotifications } from '../webhooks/index.js';
import type { WithdrawalRow, WithdrawalStatus } from './data.js';
import { withdrawalNotificationBody } from './views.js';

/**
 * The withdrawal state machine, in one place. Creation (→ PENDING) is in cashouts.service; every later
 * move goes through `transition`: a guarded UPDATE (the row must still be in `from`), its ledger entry
 * and its notification fact, all in the caller's transaction.
 *
 *   PENDING    --submit-->   PROCESSING  (sent to the payout provider)       withdrawal.pending
 *   PROCESSING --complete--> COMPLETED   (blocked leaves the account)        withdrawal.completed
 *   PROCESSING --reject-->   FAILED      (blocked back to available)         withdrawal.rejected (REJECTED)
 *   PENDING    --cancel-->   CANCELLED   (blocked back to available)         withdrawal.canceled
 *   PROCESSING --withdraw--> CANCELLED   (blocked back to available)         withdrawal.canceled
 *     (the sandbox payout provider gives up an order it has not paid: it pays only when told to)
 *   PENDING    --hold-->     AWAITING_REVIEW  (a held or suspended account's: never sent while there)  —
 *   AWAITING_REVIEW --release--> PENDING (a risk operator let it go; queued for the provider)   —
 *   AWAITING_REVIEW --refuse-->  CANCELLED (blocked back to available)       withdrawal.canceled
 */
export type Transition =
  | 'submit'
  | 'complete'
  | 'reject'
  | 'cancel'
  | 'withdraw'
  | 'hold'
  | 'release'
  | 'refuse';

interface Rule {
  from: WithdrawalStatus;
  to: WithdrawalStatus;
  /** null: a move the merchant is not notified of (the contract notifies only the statuses it lists). */
  event: EventName | null;
  /** The status the notification carries (a rejection reads REJECTED there, FAILED on the resource). */
  notified: string;
  processed: boolean;
  postings: ((w: WithdrawalRow) => Posting[]) | null;
  /** Only while no provider submission is in flight (submitting_at unset): a cancel must not race a payout. */
  requiresUnsubmitted?: boolean;
}

/** The withdrawal's bucket: its recipient's (split payments) or its account's. */
const holder = (w: WithdrawalRow, bucket: Bucket): Posting['target'] =>
  w.recipient_id != null ? { recipientId: w.recipient_id, bucket } : { accountId: w.account_id, bucket };

const release = (w: WithdrawalRow): Posting[] => [
  { target: holder(w, 'blocked'), amount: -w.amount },
  { target: holder(w, 'available'), amount: w.amount },
];

export const RULES: Record<Transition, Rule> = {
  submit: {
    from: 'PENDING',
    to: 'PROCESSING',
    event: 'withdrawal.pending',
    notified: 'PROCESSING',
    processed: false,
    postings: null,
  },
  complete: {
    from: 'PROCESSING',
    to: 'COMPLETED',
    event: 'withdrawal.completed',
    notified: 'COMPLETED',
    processed: true,
    postings: (w) => [
      { target: holder(w, 'blocked'), amount: -w.amount },
      { target: { system: 'payouts' }, amount: w.net_amount },
      { target: { system: 'fees' }, amount: w.fee_fixed + w.fee_variable },
    ],
  },
  reject: {
    from: 'PROCESSING',
    to: 'FAILED',
    event: 'withdrawal.rejected',
    notified: 'REJECTED',
    processed: true,
    postings: release,
  },
  cancel: {
    from: 'PENDING',
    to: 'CANCELLED',
    event: 'withdrawal.canceled',
    notified: 'CANCELLED',
    processed: false,
    postings: release,
    requiresUnsubmitted: true,
  },
  withdraw: {
    from: 'PROCESSING',
    to: 'CANCELLED',
    event: 'withdrawal.canceled',
    notified: 'CANCELLED',
    processed: true,
    postings: release,
  },
  hold: {
    from: 'PENDING',
    to: 'AWAITING_REVIEW',
    event: null,
    notified: 'AWAITING_REVIEW',
    processed: false,
    postings: null,
    requiresUnsubmitted: true,
  },
  release: {
    from: 'AWAITING_REVIEW',
    to: 'PENDING',
    event: null,
    notified: 'PENDING',
    processed: false,
    postings: null,
  },
  refuse: {
    from: 'AWAITING_REVIEW',
    to: 'CANCELLED',
    event: 'withdrawal.canceled',
    notified: 'CANCELLED',
    processed: true,
    postings: release,
  },
};

export type TransitionResult =
  | { changed: true; withdrawal: WithdrawalRow }
  | { changed: false; withdrawal: WithdrawalRow | null };

/**
 * Applies `transition` to withdrawal `id` if it is still in the rule's `from` status; otherwise changes
 * nothing (a repeated or late provider callback, a cancel that lost a race) and returns the current row.
 * A cancel also requires that no provider submission is in flight (submitting_at unset).
 */
export async function transition(
  tx: Queryable,
  id: number,
  name: Transition,
  externalId: string | null = null,
): Promise<TransitionResult> {
  const [result] = await transitionMany(tx, [{ id, externalId }], name);
  return result!;
}

/**
 * `transition` for many withdrawals (distinct ids) in the caller's transaction: the rows are locked in id
 * order and moved in one statement, their notification facts recorded in one more, their ledger entries (if
 * the rule has any) posted one by one in account order — the order every other writer locks balance rows in,
 * so a batch spanning merchants cannot deadlock with a settlement. Each withdrawal is decided on its own;
 * results in the order given.
 */
export async function transitionMany(
  tx: Queryable,
  items: { id: number; externalId: string | null }[],
  name: Transition,
): Promise<TransitionResult[]> {
  if (items.length === 0) return [];
  const rule = RULES[name];
  const ids = items.map((i) => i.id);
  const rows = await tx.query<WithdrawalRow & { user_name: string; user_email: string }>(
    `WITH v AS (SELECT * FROM unnest($1::bigint[], $5::text[]) AS v(id, external_id)),
     l AS (
       SELECT id FROM withdrawals
        WHERE id = ANY($1::bigint[]) AND status = $3 ${rule.requiresUnsubmitted ? 'AND submitting_at IS NULL' : ''}
        ORDER BY id FOR UPDATE),
     w AS (
       UPDATE withdrawals w
          SET status = $2, updated_at = now(),
              processed_at = CASE WHEN $4 THEN now() ELSE w.processed_at END,
              external_id = COALESCE(v.external_id, w.external_id)
         FROM l JOIN v ON v.id = l.id
        WHERE w.id = l.id AND w.status = $3
        RETURNING w.*)
     SELECT w.*, ${accountColumnSql('name', 'w.account_id')} AS user_name,
            ${accountColumnSql('email', 'w.account_id')} AS user_email
       FROM w ORDER BY w.account_id, w.id`,
    [ids, rule.to, rule.from, rule.processed, items.map((i) => i.externalId)],
  );
  const moved = new Map<number, WithdrawalRow>();
  const facts: NotificationFact[] = [];
  for (const { user_name, user_email, ...withdrawal } of rows) {
    moved.set(withdrawal.id, withdrawal);
    if (rule.event) {
      facts.push({
        accountId: withdrawal.account_id,
        event: rule.event,
        subjectType: 'withdrawal',
        subjectId: withdrawal.id,
        webhookBody: withdrawalNotificationBody(withdrawal, rule.notified, {
          id: withdrawal.account_id,
          name: user_name,
          email: user_email,
        }),
      });
    }
    if (rule.postings) {
      await postEntry(tx, {
        kind: `withdrawal.${name}`,
        refType: 'withdrawal',
        refId: withdrawal.id,
        postings: rule.postings(withdrawal),
      });
    }
  }
  await recordNotifications(tx, facts);
  const unchanged = ids.filter((id) => !moved.has(id));
  const current = new Map(
    unchanged.length > 0
      ? (
          await tx.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = ANY($1::bigint[])', [unchanged])
        ).map((w) => [w.id, w])
      : [],
  );
  return ids.map((id): TransitionResult => {
    const withdrawal = moved.get(id);
    return withdrawal
      ? { changed: true, withdrawal }
      : { changed: false, withdrawal: current.get(id) ?? null };
  });
}
