import type { Queryable } from '../platform/db/db.js';
import type { Interval, LocalDate } from './periods.js';

export type SubscriptionMethod = 'CREDIT_CARD' | 'PIX' | 'BOLETO';
export type SubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'unpaid'
  | 'canceled';
/** A charge's split rules as the request gives them (checked by the sales module). */
export type SplitRules = {
  recipientId: string;
  amountCents?: number;
  percent?: number;
  chargeFees?: boolean;
  liable?: boolean;
}[];

/** Why a subscription was canceled: the merchant or the customer asked, dunning ended it, its account closed. */
export type CancelReason = 'requested' | 'unpaid' | 'account_closed';

export interface PlanRow {
  id: number;
  uuid: string;
  account_id: number;
  name: string;
  amount_cents: number;
  interval: Interval;
  interval_count: number;
  trial_days: number;
  methods: SubscriptionMethod[];
  active: boolean;
  created_at: Date;
}

export interface SubscriptionRow {
  id: number;
  uuid: string;
  account_id: number;
  customer_id: number;
  /** The plan being billed: the current period's, or the next's once its first try has begun. */
  plan_id: number;
  next_plan_id: number | null;
  /** The plan the current period was charged at (migration 284); null: `plan_id`. */
  current_plan_id: number | null;
  payment_method: SubscriptionMethod;
  card_id: string | null;
  address: Record<string, string> | null;
  status: SubscriptionStatus;
  anchor_date: LocalDate;
  trial_end: LocalDate | null;
  period_index: number;
  attempt: number;
  first_failed_at: Date | null;
  current_period_start: LocalDate;
  current_period_end: LocalDate;
  /** When the next charge is made (the merchant reads it); null once nothing more is charged. */
  next_charge_at: Date | null;
  /** A try being made, or its sale awaiting an outcome: when the scheduler looks at it again. */
  lease_until: Date | null;
  /** An incomplete subscription whose first period is not paid by then becomes incomplete_expired. */
  incomplete_expires_at: Date | null;
  cancel_at_period_end: boolean;
  canceled_at: Date | null;
  cancel_reason: CancelReason | null;
  /** The charge's split rules every period's sale carries, as given; null: none. */
  split: SplitRules | null;
  created_at: Date;
  billing_token_sealed: string;
  /** The customer's Pix Automático mandate a PIX subscription's periods are debited through (sales' recurrences). */
  recurrence_id: number | null;
}

export interface ChargeRow {
  id: number;
  subscription_id: number;
  period_index: number;
  attempt: number;
  sale_id: number | null;
  outcome: 'paid' | 'failed' | null;
  claimed_at: Date;
}

// dates come back as São Paulo calendar dates ("YYYY-MM-DD"), never as instants
const SUBSCRIPTION_COLUMNS = `id, uuid, account_id, customer_id, plan_id, next_plan_id, current_plan_id, payment_method, card_id,
  address, status, to_char(anchor_date, 'YYYY-MM-DD') AS anchor_date, to_char(trial_end, 'YYYY-MM-DD') AS trial_end,
  period_index, attempt, first_failed_at, to_char(current_period_start, 'YYYY-MM-DD') AS current_period_start,
  to_char(current_period_end, 'YYYY-MM-DD') AS current_period_end, next_charge_at, lease_until,
  incomplete_expires_at, cancel_at_period_end, canceled_at, cancel_reason, created_at, billing_token_sealed,
  recurrence_id, split`;

const numeric = <T extends { id: number }>(row: T): T => ({ ...row, id: Number(row.id) });
const plan = (r: PlanRow): PlanRow => ({
  ...numeric(r),
  account_id: Number(r.account_id),
  amount_cents: Number(r.amount_cents),
});
const subscription = (r: SubscriptionRow): SubscriptionRow => ({
  ...numeric(r),
  account_id: Number(r.account_id),
  customer_id: Number(r.customer_id),
  plan_id: Number(r.plan_id),
  next_plan_id: r.next_plan_id === null ? null : Number(r.next_plan_id),
  current_plan_id: r.current_plan_id === null ? null : Number(r.current_plan_id),
  recurrence_id: r.recurrence_id === null ? null : Number(r.recurrence_id),
});

export async function insertPlan(
  q: Queryable,
  p: Omit<PlanRow, 'id' | 'active' | 'created_at'>,
): Promise<PlanRow> {
  const [row] = await q.query<PlanRow>(
    `INSERT INTO plans (uuid, account_id, name, amount_cents, interval, interval_count, trial_days, methods)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [p.uuid, p.account_id, p.name, p.amount_cents, p.interval, p.interval_count, p.trial_days, p.methods],
  );
  return plan(row!);
}

export async function findPlan(q: Queryable, accountId: number, uuid: string): Promise<PlanRow | null> {
  const [row] = await q.query<PlanRow>('SELECT * FROM plans WHERE uuid = $1 AND account_id = $2', [
    uuid,
    accountId,
  ]);
  return row ? plan(row) : null;
}

export async function plansById(q: Queryable, ids: number[]): Promise<Map<number, PlanRow>> {
  const rows = await q.query<PlanRow>('SELECT * FROM plans WHERE id = ANY($1::bigint[])', [ids]);
  return new Map(rows.map((r) => [Number(r.id), plan(r)]));
}

/** Newest first, `limit + 1` rows older than id `before`. */
export async function listPlans(
  q: Queryable,
  accountId: number,
  before: number | null,
  limit: number,
): Promise<PlanRow[]> {
  const rows = await q.query<PlanRow>(
    `SELECT * FROM plans WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [accountId, before, limit + 1],
  );
  return rows.map(plan);
}

export async function updatePlan(
  q: Queryable,
  id: number,
  change: { name?: string; active?: boolean },
): Promise<PlanRow> {
  const [row] = await q.query<PlanRow>(
    `UPDATE plans SET name = coalesce($2, name), active = coalesce($3, active) WHERE id = $1 RETURNING *`,
    [id, change.name ?? null, change.active ?? null],
  );
  return plan(row!);
}

export async function insertSubscription(
  q: Queryable,
  s: {
    uuid: string;
    accountId: number;
    customerId: number;
    planId: number;
    method: SubscriptionMethod;
    cardId: string | null;
    address: Record<string, string> | null;
    status: SubscriptionStatus;
    anchor: LocalDate;
    trialEnd: LocalDate | null;
    periodStart: LocalDate;
    periodEnd: LocalDate;
    nextChargeAt: Date;
    billingTokenHash: Buffer;
    billingTokenSealed: string;
    recurrenceId: number | null;
    split: SplitRules | null;
  },
): Promise<SubscriptionRow> {
  const [row] = await q.query<SubscriptionRow>(
    `INSERT INTO subscriptions (uuid, account_id, customer_id, plan_id, current_plan_id, payment_method, card_id,
        address, status, anchor_date, trial_end, current_period_start, current_period_end, next_charge_at,
        billing_token_hash, billing_token_sealed, recurrence_id, split)
     VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     RETURNING ${SUBSCRIPTION_COLUMNS}`,
    [
      s.uuid,
      s.accountId,
      s.customerId,
      s.planId,
      s.method,
      s.cardId,
      s.address === null ? null : JSON.stringify(s.address),
      s.status,
      s.anchor,
      s.trialEnd,
      s.periodStart,
      s.periodEnd,
      s.nextChargeAt,
      s.billingTokenHash,
      s.billingTokenSealed,
      s.recurrenceId,
      s.split === null ? null : JSON.stringify(s.split),
    ],
  );
  return subscription(row!);
}

/**
 * Binds a mandate found later to a PIX subscription, or none (null); false when another live subscription took
 * the mandate first (it pays for one at a time).
 */
export async function bindMandate(q: Queryable, id: number, recurrenceId: number | null): Promise<boolean> {
  const rows = await q.query(
    `UPDATE subscriptions SET recurrence_id = $2::bigint, updated_at = now()
      WHERE id = $1 AND NOT EXISTS (
        SELECT 1 FROM subscriptions o WHERE o.recurrence_id = $2::bigint AND o.status NOT IN ('canceled', 'incomplete_expired') AND o.id <> $1)
      RETURNING 1`,
    [id, recurrenceId],
  );
  return rows.length > 0;
}

/** Of these mandates, the ones a live subscription already charges through. */
export async function mandatesInUse(q: Queryable, recurrenceIds: number[]): Promise<Set<number>> {
  if (recurrenceIds.length === 0) return new Set();
  const rows = await q.query<{ recurrence_id: string }>(
    `SELECT recurrence_id FROM subscriptions WHERE recurrence_id = ANY($1::bigint[]) AND status NOT IN ('canceled', 'incomplete_expired')`,
    [recurrenceIds],
  );
  return new Set(rows.map((r) => Number(r.recurrence_id)));
}

export async function findSubscription(
  q: Queryable,
  accountId: number,
  uuid: string,
): Promise<SubscriptionRow | null> {
  const [row] = await q.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE uuid = $1 AND account_id = $2`,
    [uuid, accountId],
  );
  return row ? subscription(row) : null;
}

export async function subscriptionByTokenHash(q: Queryable, hash: Buffer): Promise<SubscriptionRow | null> {
  const [row] = await q.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE billing_token_hash = $1`,
    [hash],
  );
  return row ? subscription(row) : null;
}

/** The subscription, locked for the caller's transaction. */
export async function lockSubscription(q: Queryable, id: number): Promise<SubscriptionRow | null> {
  const [row] = await q.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id = $1 FOR UPDATE`,
    [id],
  );
  return row ? subscription(row) : null;
}

/** These subscriptions, locked in id order (two settling schedulers never wait on each other crosswise). */
export async function lockSubscriptions(q: Queryable, ids: number[]): Promise<Map<number, SubscriptionRow>> {
  const rows = await q.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`,
    [ids],
  );
  return new Map(rows.map((r) => [Number(r.id), subscription(r)]));
}

/** Newest first, `limit + 1` rows older than id `before`; of one customer when `customerId` is given. */
export async function listSubscriptions(
  q: Queryable,
  accountId: number,
  filter: { before: number | null; limit: number; customerId?: number | null; status?: string | null },
): Promise<SubscriptionRow[]> {
  const rows = await q.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
      WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) AND ($4::bigint IS NULL OR customer_id = $4)
        AND ($5::text IS NULL OR status = $5)
      ORDER BY id DESC LIMIT $3`,
    [accountId, filter.before, filter.limit + 1, filter.customerId ?? null, filter.status ?? null],
  );
  return rows.map(subscription);
}

/** Writes the subscription's changing columns (the caller holds its lock). */
export async function saveSubscription(q: Queryable, s: SubscriptionRow): Promise<SubscriptionRow> {
  const [row] = await q.query<SubscriptionRow>(
    `UPDATE subscriptions SET plan_id = $2, next_plan_id = $3, card_id = $4, status = $5, period_index = $6,
        attempt = $7, first_failed_at = $8, current_period_start = $9, current_period_end = $10,
        next_charge_at = $11, cancel_at_period_end = $12, canceled_at = $13, lease_until = $14,
        incomplete_expires_at = $15, cancel_reason = $16, current_plan_id = $17, updated_at = now()
      WHERE id = $1 RETURNING ${SUBSCRIPTION_COLUMNS}`,
    [
      s.id,
      s.plan_id,
      s.next_plan_id,
      s.card_id,
      s.status,
      s.period_index,
      s.attempt,
      s.first_failed_at,
      s.current_period_start,
      s.current_period_end,
      s.next_charge_at,
      s.cancel_at_period_end,
      s.canceled_at,
      s.lease_until,
      s.incomplete_expires_at,
      s.cancel_reason,
      s.current_plan_id,
    ],
  );
  return subscription(row!);
}

/** Several subscriptions saved as `saveSubscription` saves one, in one statement (in the order given). */
export async function saveSubscriptions(q: Queryable, subs: SubscriptionRow[]): Promise<SubscriptionRow[]> {
  if (subs.length === 0) return [];
  const col = <K extends keyof SubscriptionRow>(k: K) => subs.map((s) => s[k]);
  const rows = await q.query<SubscriptionRow>(
    `UPDATE subscriptions SET plan_id = v_plan_id, next_plan_id = v_next_plan_id, card_id = v_card_id,
        status = v_status, period_index = v_period_index, attempt = v_attempt, first_failed_at = v_first_failed_at,
        current_period_start = v_period_start, current_period_end = v_period_end, next_charge_at = v_next_charge_at,
        cancel_at_period_end = v_cancel_at_period_end, canceled_at = v_canceled_at, lease_until = v_lease_until,
        incomplete_expires_at = v_incomplete_expires_at, cancel_reason = v_cancel_reason,
        current_plan_id = v_current_plan_id, updated_at = now()
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::uuid[], $5::text[], $6::int[], $7::int[],
                   $8::timestamptz[], $9::date[], $10::date[], $11::timestamptz[], $12::bool[], $13::timestamptz[],
                   $14::timestamptz[], $15::timestamptz[], $16::text[], $17::bigint[])
         AS v(v_id, v_plan_id, v_next_plan_id, v_card_id, v_status, v_period_index, v_attempt, v_first_failed_at,
              v_period_start, v_period_end, v_next_charge_at, v_cancel_at_period_end, v_canceled_at,
              v_lease_until, v_incomplete_expires_at, v_cancel_reason, v_current_plan_id)
      WHERE id = v_id RETURNING ${SUBSCRIPTION_COLUMNS}`,
    [
      col('id'),
      col('plan_id'),
      col('next_plan_id'),
      col('card_id'),
      col('status'),
      col('period_index'),
      col('attempt'),
      col('first_failed_at'),
      col('current_period_start'),
      col('current_period_end'),
      col('next_charge_at'),
      col('cancel_at_period_end'),
      col('canceled_at'),
      col('lease_until'),
      col('incomplete_expires_at'),
      col('cancel_reason'),
      col('current_plan_id'),
    ],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), subscription(r)]));
  return subs.map((s) => byId.get(s.id)!);
}

/**
 * Up to `limit` subscriptions whose next charge is due at `now`, locked (others' locked rows skipped: two
 * schedulers share the work and never take the same one).
 */
export async function lockDue(q: Queryable, now: Date, limit: number): Promise<SubscriptionRow[]> {
  const rows = await q.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
      WHERE COALESCE(lease_until, next_charge_at) <= $1
        AND status IN ('incomplete', 'trialing', 'active', 'past_due', 'unpaid')
        -- a suspended account's charges wait (no try, no dunning); a closed one's were canceled
        AND NOT account_paused
      ORDER BY COALESCE(lease_until, next_charge_at) LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows.map(subscription);
}

/**
 * Up to `limit` subscriptions whose first paid period was not paid by its deadline (incomplete, or trialing with
 * the trial's first charge still open), locked.
 */
export async function lockIncompleteExpired(
  q: Queryable,
  now: Date,
  limit: number,
): Promise<SubscriptionRow[]> {
  const rows = await q.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
      WHERE status IN ('incomplete', 'trialing') AND incomplete_expires_at <= $1
      ORDER BY incomplete_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows.map(subscription);
}

/** An account suspended (true) or active again (false): its subscriptions' charges wait, or go on. */
export async function pauseAccountSubscriptions(q: Queryable, accountId: number, paused: boolean) {
  await q.query('UPDATE subscriptions SET account_paused = $2, updated_at = now() WHERE account_id = $1', [
    accountId,
    paused,
  ]);
}

/** The subscriptions of an account that may still charge, locked (its closing cancels them). */
export async function lockLiveOf(q: Queryable, accountId: number): Promise<SubscriptionRow[]> {
  const rows = await q.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
      WHERE account_id = $1 AND status NOT IN ('canceled', 'incomplete_expired')
      ORDER BY id FOR UPDATE`,
    [accountId],
  );
  return rows.map(subscription);
}

/** Claims tries at periods' charges in one statement; those claimed before are left out of the answer. */
export async function claimCharges(
  q: Queryable,
  tries: { subscriptionId: number; periodIndex: number; attempt: number }[],
): Promise<ChargeRow[]> {
  if (tries.length === 0) return [];
  const rows = await q.query<ChargeRow>(
    `INSERT INTO subscription_charges (subscription_id, period_index, attempt)
     SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[])
     ON CONFLICT (subscription_id, period_index, attempt) DO NOTHING RETURNING *`,
    [tries.map((t) => t.subscriptionId), tries.map((t) => t.periodIndex), tries.map((t) => t.attempt)],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), subscription_id: Number(r.subscription_id) }));
}

/** Claims a try at a period's charge; null when it was claimed before (by this or another scheduler). */
export async function claimCharge(
  q: Queryable,
  subscriptionId: number,
  periodIndex: number,
  attempt: number,
): Promise<ChargeRow | null> {
  const [row] = await q.query<ChargeRow>(
    `INSERT INTO subscription_charges (subscription_id, period_index, attempt) VALUES ($1, $2, $3)
     ON CONFLICT (subscription_id, period_index, attempt) DO NOTHING RETURNING *`,
    [subscriptionId, periodIndex, attempt],
  );
  return row ? { ...row, id: Number(row.id) } : null;
}

export async function findCharge(
  q: Queryable,
  subscriptionId: number,
  periodIndex: number,
  attempt: number,
): Promise<ChargeRow | null> {
  const [row] = await q.query<ChargeRow>(
    `SELECT * FROM subscription_charges WHERE subscription_id = $1 AND period_index = $2 AND attempt = $3`,
    [subscriptionId, periodIndex, attempt],
  );
  return row
    ? { ...row, id: Number(row.id), sale_id: row.sale_id === null ? null : Number(row.sale_id) }
    : null;
}

/** A claim whose worker died before its sale was stored is taken over (its claim time renewed). */
export async function retakeStaleClaim(
  q: Queryable,
  chargeId: number,
  olderThanSeconds: number,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE subscription_charges SET claimed_at = now()
      WHERE id = $1 AND sale_id IS NULL AND outcome IS NULL
        AND claimed_at < now() - make_interval(secs => $2::double precision)
      RETURNING id`,
    [chargeId, olderThanSeconds],
  );
  return rows.length > 0;
}

/**
 * Lets a claimed try go at once, its sale not made: the claim reads as a dead scheduler's whose lease ended, and
 * the subscription is due again, so the next round that may charge it takes the try over (the same attempt).
 * Nothing when the try has a sale or an outcome by now.
 */
export async function releaseClaim(q: Queryable, chargeId: number): Promise<void> {
  await q.query(
    `WITH c AS (
       UPDATE subscription_charges SET claimed_at = to_timestamp(0)
        WHERE id = $1 AND sale_id IS NULL AND outcome IS NULL
        RETURNING subscription_id)
     UPDATE subscriptions s SET lease_until = now(), updated_at = now() FROM c WHERE s.id = c.subscription_id`,
    [chargeId],
  );
}

/**
 * Binds the claim to the sale made for it, in the transaction that stores the sale: false when it is already
 * bound (a worker that took the claim over stored its sale first), and the caller rolls its own sale back.
 */
export async function bindCharge(q: Queryable, chargeId: number, saleId: number): Promise<boolean> {
  const rows = await q.query(
    'UPDATE subscription_charges SET sale_id = $2 WHERE id = $1 AND sale_id IS NULL RETURNING id',
    [chargeId, saleId],
  );
  return rows.length > 0;
}

/** A try that could make no sale (the saved card was deleted): failed as it is. */
export async function failUnsoldCharge(q: Queryable, chargeId: number): Promise<void> {
  await q.query(`UPDATE subscription_charges SET outcome = 'failed' WHERE id = $1 AND sale_id IS NULL`, [
    chargeId,
  ]);
}

/**
 * Tries whose sale is stored and whose outcome is not yet applied, in id order after `after` (not locked: the
 * caller locks those whose sale has ended); of one subscription, or among some tries, when asked.
 */
export async function openCharges(
  q: Queryable,
  limit: number,
  after: number,
  only: { subscriptionId?: number; chargeIds?: number[] } = {},
): Promise<ChargeRow[]> {
  const rows = await q.query<ChargeRow>(
    `SELECT * FROM subscription_charges
      WHERE outcome IS NULL AND sale_id IS NOT NULL AND id > $2
        AND ($3::bigint IS NULL OR subscription_id = $3) AND ($4::bigint[] IS NULL OR id = ANY($4))
      ORDER BY id LIMIT $1`,
    [limit, after, only.subscriptionId ?? null, only.chargeIds ?? null],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), sale_id: Number(r.sale_id) }));
}

/**
 * Whether a try of the subscription claimed within the last `seconds` has no outcome yet (being made, or its
 * sale not ended): a card's try ends within them; a Pix or boleto one left open for its payer is not counted.
 */
export async function hasTryUnderWay(
  q: Queryable,
  subscriptionId: number,
  seconds: number,
): Promise<boolean> {
  const rows = await q.query(
    `SELECT 1 FROM subscription_charges
      WHERE subscription_id = $1 AND outcome IS NULL
        AND claimed_at > now() - make_interval(secs => $2::double precision)
      LIMIT 1`,
    [subscriptionId, seconds],
  );
  return rows.length > 0;
}

/**
 * These tries, still without an outcome, locked: those another scheduler holds are skipped, or, with `wait`,
 * waited for (and left out once it has given them their outcome).
 */
export async function lockCharges(q: Queryable, ids: number[], wait = false): Promise<ChargeRow[]> {
  const rows = await q.query<ChargeRow>(
    `SELECT * FROM subscription_charges WHERE id = ANY($1::bigint[]) AND outcome IS NULL
      ORDER BY id FOR UPDATE${wait ? '' : ' SKIP LOCKED'}`,
    [ids],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), sale_id: Number(r.sale_id) }));
}

export async function setOutcomes(
  q: Queryable,
  chargeIds: number[],
  outcome: 'paid' | 'failed',
): Promise<void> {
  if (chargeIds.length === 0) return;
  await q.query('UPDATE subscription_charges SET outcome = $2 WHERE id = ANY($1::bigint[])', [
    chargeIds,
    outcome,
  ]);
}

export async function setOutcome(q: Queryable, chargeId: number, outcome: 'paid' | 'failed'): Promise<void> {
  await q.query('UPDATE subscription_charges SET outcome = $2 WHERE id = $1', [chargeId, outcome]);
}

/** The period index each of a subscription's sales was a try at, by sale id. */
export async function periodsOfSales(q: Queryable, subscriptionId: number): Promise<Map<number, number>> {
  const rows = await q.query<{ sale_id: string; period_index: number }>(
    'SELECT sale_id, period_index FROM subscription_charges WHERE subscription_id = $1 AND sale_id IS NOT NULL',
    [subscriptionId],
  );
  return new Map(rows.map((r) => [Number(r.sale_id), Number(r.period_index)]));
}
