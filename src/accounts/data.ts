import type { Queryable } from '../platform/db/db.js';

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
}

/** The sale rates of these accounts, in one read (a batch of sales of several merchants). */
export async function saleFeeRates(q: Queryable, accountIds: number[]): Promise<Map<number, SaleFeeRates>> {
  const rows = await q.query<SaleFeeRates & { id: number }>(
    `SELECT id, sale_fee_percent_e4, sale_fee_fixed, reserve_percent_e4, card_fee_percent_e4,
            card_installment_fee_percent_e4
       FROM accounts WHERE id = ANY($1::bigint[])`,
    [[...new Set(accountIds)]],
  );
  return new Map(rows.map(({ id, ...rates }) => [Number(id), rates]));
}

/** The account's cashout fee (null: no such account). */
export async function withdrawalFee(
  q: Queryable,
  accountId: number,
): Promise<{ fixed: number; percentE4: number } | null> {
  const [row] = await q.query<{ fixed: number; percent_e4: number }>(
    'SELECT cashout_fee_fixed AS fixed, cashout_fee_percent_e4 AS percent_e4 FROM accounts WHERE id = $1',
    [accountId],
  );
  return row ? { fixed: row.fixed, percentE4: row.percent_e4 } : null;
}

/**
 * A subquery: the account's cashout fee and switches, one row (`cashout_fee_fixed`, … `transfers_enabled`), and
 * `payouts_held`: its withdrawals wait for an operator (a payout hold, or a suspension).
 */
export function withdrawalTermsSql(accountIdExpr: string): string {
  return `SELECT cashout_fee_fixed, cashout_fee_percent_e4, api_cashout_enabled, transfers_enabled,
                 (payout_hold OR status = 'suspended') AS payouts_held
            FROM accounts WHERE id = ${accountIdExpr}`;
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
