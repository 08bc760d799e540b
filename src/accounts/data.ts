import type { Queryable } from '../platform/db/db.js';
import type { FeePlanRates } from './fee-plans.js';
import type { AccountStatus } from './status.js';

/*
 * What other modules read of an account. The fragments are for the statements of hot paths that read an
 * account beside their own tables in one round trip: the accounts module still writes every word of SQL that
 * names its table.
 */

export async function accountName(q: Queryable, accountId: number): Promise<string | null> {
  const [row] = await q.query<{ name: string }>('SELECT name FROM accounts WHERE id = $1', [accountId]);
  return row?.name ?? null;
}

/** What a sale's fees and reserve are computed from. */
export interface SaleFeeRates {
  sale_fee_percent_e4: number;
  sale_fee_fixed: number;
  reserve_percent_e4: number;
  /** Card sales: the fee in place of sale_fee_percent_e4 (null: the same), and what each extra installment adds. */
  card_fee_percent_e4: number | null;
  card_installment_fee_percent_e4: number;
  /** The account's fee plan, whose rates replace the account's own fee columns above (null: no plan). */
  plan: FeePlanRates | null;
  /** Its standing, read with its rates: a sale's admission checks it first. */
  status: AccountStatus;
  /** Its card payments paused for review (too many refused): a card sale is refused before anything is used. */
  card_payments_paused: boolean;
  /** Its name (a boleto prints it as the shop that sold). */
  name: string;
}

const PLAN_COLUMNS = [
  'pix_percent_e4',
  'pix_fixed',
  'boleto_fixed',
  'credit_1_percent_e4',
  'credit_2_6_percent_e4',
  'credit_7_12_percent_e4',
  'debit_percent_e4',
  'anticipation_monthly_percent_e4',
  'cashout_fixed',
] as const;

/** The sale rates of these accounts with their plans', in one read (a batch of sales of several merchants). */
export async function saleFeeRates(q: Queryable, accountIds: number[]): Promise<Map<number, SaleFeeRates>> {
  const ids = [...new Set(accountIds)];
  const columns = `a.id, a.name, a.status, a.card_payments_paused, a.sale_fee_percent_e4, a.sale_fee_fixed,
       a.reserve_percent_e4, a.card_fee_percent_e4, a.card_installment_fee_percent_e4, p.id AS plan_id,
       ${PLAN_COLUMNS.map((c) => `p.${c}`).join(', ')}`;
  // read by every sale's admission: parsed and planned once per connection. One account (nearly every read) by
  // its own statement: PostgreSQL keeps planning `= ANY($1)` anew on every call (its generic plan, made for an
  // array of unknown length, costs more than a plan for the array given), `= $1` it plans once
  const rows = await q.query<Record<string, number | string | boolean | null>>(
    `SELECT ${columns} FROM accounts a LEFT JOIN fee_plans p ON p.id = a.fee_plan_id
      WHERE ${ids.length === 1 ? 'a.id = $1' : 'a.id = ANY($1::bigint[])'}`,
    [ids.length === 1 ? ids[0] : ids],
    { prepare: ids.length === 1 ? 'sale_fee_rates_one_v1' : 'sale_fee_rates_v3' },
  );
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        sale_fee_percent_e4: Number(r.sale_fee_percent_e4),
        sale_fee_fixed: Number(r.sale_fee_fixed),
        reserve_percent_e4: Number(r.reserve_percent_e4),
        card_fee_percent_e4: r.card_fee_percent_e4 === null ? null : Number(r.card_fee_percent_e4),
        card_installment_fee_percent_e4: Number(r.card_installment_fee_percent_e4),
        status: r.status as AccountStatus,
        card_payments_paused: r.card_payments_paused === true,
        name: String(r.name),
        plan:
          r.plan_id === null
            ? null
            : (Object.fromEntries(PLAN_COLUMNS.map((c) => [c, Number(r[c])])) as unknown as FeePlanRates),
      },
    ]),
  );
}

/** The monthly anticipation rate of an account: its plan's, or its own (null: no such account). */
export async function anticipationRate(q: Queryable, accountId: number): Promise<number | null> {
  const [row] = await q.query<{ rate: number }>(
    `SELECT COALESCE(p.anticipation_monthly_percent_e4, a.anticipation_monthly_percent_e4) AS rate
       FROM accounts a LEFT JOIN fee_plans p ON p.id = a.fee_plan_id WHERE a.id = $1`,
    [accountId],
  );
  return row ? Number(row.rate) : null;
}

/** The account's cashout fee, its plan's when it has one (null: no such account). */
export async function withdrawalFee(
  q: Queryable,
  accountId: number,
): Promise<{ fixed: number; percentE4: number } | null> {
  const [row] = await q.query<{ fixed: number; percent_e4: number }>(
    `SELECT COALESCE(p.cashout_fixed, a.cashout_fee_fixed) AS fixed,
            CASE WHEN p.id IS NULL THEN a.cashout_fee_percent_e4 ELSE 0 END AS percent_e4
       FROM accounts a LEFT JOIN fee_plans p ON p.id = a.fee_plan_id WHERE a.id = $1`,
    [accountId],
  );
  return row ? { fixed: Number(row.fixed), percentE4: Number(row.percent_e4) } : null;
}

/**
 * A subquery: the account's cashout fee and switches, one row (`cashout_fee_fixed`, … `transfers_enabled`), and
 * `payouts_held`: its withdrawals wait for an operator (a payout hold, or a suspension).
 */
export function withdrawalTermsSql(accountIdExpr: string): string {
  return `SELECT COALESCE(p.cashout_fixed, a.cashout_fee_fixed) AS cashout_fee_fixed,
                 CASE WHEN p.id IS NULL THEN a.cashout_fee_percent_e4 ELSE 0 END AS cashout_fee_percent_e4,
                 a.api_cashout_enabled, a.transfers_enabled,
                 (a.payout_hold OR a.status = 'suspended') AS payouts_held
            FROM accounts a LEFT JOIN fee_plans p ON p.id = a.fee_plan_id WHERE a.id = ${accountIdExpr}`;
}

/** A boolean SQL expression: the account `accountIdExpr` names has its payouts held (a hold, or a suspension). */
export function payoutsHeldSql(accountIdExpr: string): string {
  return `EXISTS (SELECT 1 FROM accounts WHERE id = ${accountIdExpr} AND (payout_hold OR status = 'suspended'))`;
}

/** A scalar subquery: one column of the account `accountIdExpr` names. */
export function accountColumnSql(column: 'name' | 'email', accountIdExpr: string): string {
  return `(SELECT ${column} FROM accounts WHERE id = ${accountIdExpr})`;
}

/** A subquery: every account's id. */
export const EVERY_ACCOUNT_ID_SQL = 'SELECT id FROM accounts';

/** Of these accounts, those whose payers get the abandoned-cart recovery e-mail, with their names. */
export async function cartRecoveryAccounts(q: Queryable, accountIds: number[]): Promise<Map<number, string>> {
  const rows = await q.query<{ id: number; name: string }>(
    'SELECT id, name FROM accounts WHERE id = ANY($1::bigint[]) AND cart_recovery_email',
    [[...new Set(accountIds)]],
  );
  return new Map(rows.map((r) => [Number(r.id), r.name]));
}

/** Several accounts' names at once (reports that list accounts). */
export async function accountNames(q: Queryable, accountIds: number[]): Promise<Map<number, string>> {
  if (accountIds.length === 0) return new Map();
  const rows = await q.query<{ id: string; name: string }>(
    'SELECT id, name FROM accounts WHERE id = ANY($1::bigint[])',
    [accountIds],
  );
  return new Map(rows.map((r) => [Number(r.id), r.name]));
}
