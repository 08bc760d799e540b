import type { Queryable } from '../platform/db/db.js';
import { isUniqueViolation } from '../platform/db/db.js';
import { AppError, conflict, notFound, validation } from '../platform/errors/app-error.js';
import { formatPercentE4, parsePercentE4 } from '../platform/money/money.js';
import { nameProblem } from '../platform/text/names.js';

/** A fee plan as the contract shows it (decisions.md, "Fee plans"): percent values as decimal strings. */
export interface FeePlanView {
  id: number;
  name: string;
  pixPercent: string;
  pixFixedCents: number;
  boletoFixedCents: number;
  creditPercent: { '1': string; '2-6': string; '7-12': string };
  debitPercent: string;
  anticipationMonthlyPercent: string;
  cashoutFixedCents: number;
}

/** A plan's rates as stored (integer ten-thousandths of a percent, cents). */
export interface FeePlanRates {
  pix_percent_e4: number;
  pix_fixed: number;
  boleto_fixed: number;
  credit_1_percent_e4: number;
  credit_2_6_percent_e4: number;
  credit_7_12_percent_e4: number;
  debit_percent_e4: number;
  anticipation_monthly_percent_e4: number;
  cashout_fixed: number;
}

export interface FeePlanRow extends FeePlanRates {
  id: number;
  name: string;
}

/** The plan fields a request may give (all of them to create, any of them to change). */
export type FeePlanInput = Partial<Omit<FeePlanView, 'id' | 'creditPercent'>> & {
  creditPercent?: Partial<FeePlanView['creditPercent']>;
};

const COLUMNS = `id, name, pix_percent_e4, pix_fixed, boleto_fixed, credit_1_percent_e4, credit_2_6_percent_e4,
  credit_7_12_percent_e4, debit_percent_e4, anticipation_monthly_percent_e4, cashout_fixed`;

const num = (v: unknown) => Number(v);

export function feePlanView(row: FeePlanRow): FeePlanView {
  return {
    id: num(row.id),
    name: row.name,
    pixPercent: formatPercentE4(num(row.pix_percent_e4)),
    pixFixedCents: num(row.pix_fixed),
    boletoFixedCents: num(row.boleto_fixed),
    creditPercent: {
      '1': formatPercentE4(num(row.credit_1_percent_e4)),
      '2-6': formatPercentE4(num(row.credit_2_6_percent_e4)),
      '7-12': formatPercentE4(num(row.credit_7_12_percent_e4)),
    },
    debitPercent: formatPercentE4(num(row.debit_percent_e4)),
    anticipationMonthlyPercent: formatPercentE4(num(row.anticipation_monthly_percent_e4)),
    cashoutFixedCents: num(row.cashout_fixed),
  };
}

function percent(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const e4 = parsePercentE4(value);
  if (e4 === null)
    throw validation(
      `${field} must be a percentage from 0 to 100 as a decimal string of at most 4 decimals ("3.99")`,
    );
  return e4;
}

function cents(value: number | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0 || value > 100_000_000) {
    throw validation(`${field} must be whole cents from 0 to 100000000`);
  }
  return value;
}

function planName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // shown to the merchants on the plan (their panel, their e-mails): a name as any other printed to people
  const name = value.trim();
  const problem = nameProblem(name, { maxLength: 100 });
  if (problem) throw validation(`name ${problem}`);
  return name;
}

/** The input as columns (undefined: not given); a value out of range → VALIDATION_ERROR. */
function columnsOf(input: FeePlanInput): Partial<Record<keyof FeePlanRates | 'name', string | number>> {
  const c = input.creditPercent ?? {};
  const columns = {
    name: planName(input.name),
    pix_percent_e4: percent(input.pixPercent, 'pixPercent'),
    pix_fixed: cents(input.pixFixedCents, 'pixFixedCents'),
    boleto_fixed: cents(input.boletoFixedCents, 'boletoFixedCents'),
    credit_1_percent_e4: percent(c['1'], 'creditPercent.1'),
    credit_2_6_percent_e4: percent(c['2-6'], 'creditPercent.2-6'),
    credit_7_12_percent_e4: percent(c['7-12'], 'creditPercent.7-12'),
    debit_percent_e4: percent(input.debitPercent, 'debitPercent'),
    anticipation_monthly_percent_e4: percent(input.anticipationMonthlyPercent, 'anticipationMonthlyPercent'),
    cashout_fixed: cents(input.cashoutFixedCents, 'cashoutFixedCents'),
  };
  return Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined));
}

const REQUIRED = 10; // name and the nine rates

function nameTaken(err: unknown, name: unknown): never {
  if (isUniqueViolation(err)) throw conflict(`a fee plan named "${String(name)}" already exists`);
  throw err;
}

export async function listFeePlans(q: Queryable): Promise<FeePlanView[]> {
  const rows = await q.query<FeePlanRow>(`SELECT ${COLUMNS} FROM fee_plans ORDER BY id`);
  return rows.map(feePlanView);
}

export async function findFeePlan(q: Queryable, id: number): Promise<FeePlanView | null> {
  const [row] = await q.query<FeePlanRow>(`SELECT ${COLUMNS} FROM fee_plans WHERE id = $1`, [id]);
  return row ? feePlanView(row) : null;
}

/** A new plan: every field given (the contract's shape), a name no other plan has. */
export async function createFeePlan(q: Queryable, input: FeePlanInput): Promise<FeePlanView> {
  const columns = columnsOf(input);
  if (Object.keys(columns).length !== REQUIRED) {
    throw validation(
      'a fee plan needs name, pixPercent, pixFixedCents, boletoFixedCents, creditPercent {"1", "2-6", "7-12"}, debitPercent, anticipationMonthlyPercent and cashoutFixedCents',
    );
  }
  const names = Object.keys(columns);
  const [row] = await q
    .query<FeePlanRow>(
      `INSERT INTO fee_plans (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})
       RETURNING ${COLUMNS}`,
      Object.values(columns),
    )
    .catch((err: unknown) => nameTaken(err, columns.name));
  return feePlanView(row!);
}

/** FEE_PLAN_DEFAULT: the name of the plan new accounts are put on (null: their own rates). Set once at start. */
let defaultFeePlan: string | null = null;

export function setDefaultFeePlan(name: string | null): void {
  defaultFeePlan = name;
}

/** The name FEE_PLAN_DEFAULT gives (a plan of that name may not exist yet); null: none. */
export function defaultFeePlanName(): string | null {
  return defaultFeePlan;
}

/**
 * Changes a plan (the fields given): sales already created keep the fees they were created with; the accounts
 * on it pay the new rates from their next sale, withdrawal or anticipation on. Returns it before and after.
 */
export async function updateFeePlan(
  tx: Queryable,
  id: number,
  input: FeePlanInput,
): Promise<{ before: FeePlanView; after: FeePlanView }> {
  const columns = columnsOf(input);
  if (Object.keys(columns).length === 0) throw validation('nothing to change: give at least one field');
  const [old] = await tx.query<FeePlanRow>(`SELECT ${COLUMNS} FROM fee_plans WHERE id = $1 FOR UPDATE`, [id]);
  if (!old) throw notFound('Fee plan not found');
  // FEE_PLAN_DEFAULT finds its plan by name: renamed, new accounts would be made on no plan
  if (columns.name !== undefined && columns.name !== old.name && old.name === defaultFeePlan) {
    throw conflict(
      `"${old.name}" is the plan FEE_PLAN_DEFAULT names, which new accounts are put on: set FEE_PLAN_DEFAULT to the new name (and restart) before renaming it, or make a new plan`,
    );
  }
  const names = Object.keys(columns);
  const [row] = await tx
    .query<FeePlanRow>(
      `UPDATE fee_plans SET ${names.map((n, i) => `${n} = $${i + 2}`).join(', ')}, updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...Object.values(columns)],
    )
    .catch((err: unknown) => nameTaken(err, columns.name));
  return { before: feePlanView(old), after: feePlanView(row!) };
}

/** Puts an account on a plan; returns the plan it had (null: its own rates) and the new one. */
export async function assignFeePlan(
  tx: Queryable,
  accountId: number,
  planId: number,
): Promise<{ before: FeePlanView | null; after: FeePlanView }> {
  const plan = await findFeePlan(tx, planId);
  if (!plan) throw new AppError('VALIDATION_ERROR', `no fee plan with id ${planId}`);
  const [row] = await tx.query<{ old: number | null; status: string }>(
    `UPDATE accounts a SET fee_plan_id = $2, updated_at = now()
       FROM (SELECT id, fee_plan_id, status FROM accounts WHERE id = $1 FOR UPDATE) old
      WHERE a.id = old.id RETURNING old.fee_plan_id AS old, old.status`,
    [accountId, planId],
  );
  if (!row) throw notFound('Account not found');
  // a closed account sells nothing again: a plan put on it would price nothing, and its audit would mislead
  if (row.status === 'closed')
    throw new AppError('INVALID_STATUS', 'The account is closed: its fee plan no longer changes');
  const before = row.old === null ? null : await findFeePlan(tx, Number(row.old));
  return { before, after: plan };
}

/** The id of the plan named `name` (FEE_PLAN_DEFAULT); null: none has that name. */
export async function feePlanIdByName(q: Queryable, name: string): Promise<number | null> {
  const [row] = await q.query<{ id: number }>('SELECT id FROM fee_plans WHERE name = $1', [name]);
  return row ? Number(row.id) : null;
}

/** What a merchant reads at GET /api/fees: the plan in force, or its own rates in the plan's shape. */
export interface MerchantFees extends Omit<FeePlanView, 'id' | 'name'> {
  id: number | null;
  name: string | null;
  source: 'plan' | 'account';
  /** Without a plan, the account's own rates exactly as they are applied (the shape above rounds bands). */
  accountRates: {
    salePercent: string;
    saleFixedCents: number;
    cardPercent: string;
    cardInstallmentPercent: string;
    cashoutPercent: string;
    cashoutFixedCents: number;
  } | null;
}

export async function merchantFees(q: Queryable, accountId: number): Promise<MerchantFees | null> {
  const [row] = await q.query<
    Partial<FeePlanRow> & {
      plan_id: number | null;
      sale_fee_percent_e4: number;
      sale_fee_fixed: number;
      card_fee_percent_e4: number | null;
      card_installment_fee_percent_e4: number;
      cashout_fee_percent_e4: number;
      cashout_fee_fixed: number;
      own_anticipation_e4: number;
    }
  >(
    `SELECT p.id AS plan_id, p.name, p.pix_percent_e4, p.pix_fixed, p.boleto_fixed, p.credit_1_percent_e4,
            p.credit_2_6_percent_e4, p.credit_7_12_percent_e4, p.debit_percent_e4,
            p.anticipation_monthly_percent_e4, p.cashout_fixed,
            a.sale_fee_percent_e4, a.sale_fee_fixed, a.card_fee_percent_e4, a.card_installment_fee_percent_e4,
            a.cashout_fee_percent_e4, a.cashout_fee_fixed, a.anticipation_monthly_percent_e4 AS own_anticipation_e4
       FROM accounts a LEFT JOIN fee_plans p ON p.id = a.fee_plan_id WHERE a.id = $1`,
    [accountId],
  );
  if (!row) return null;
  if (row.plan_id !== null) {
    const view = feePlanView({ ...(row as FeePlanRow), id: row.plan_id });
    return { ...view, source: 'plan', accountRates: null };
  }
  const card = num(row.card_fee_percent_e4 ?? row.sale_fee_percent_e4);
  const step = num(row.card_installment_fee_percent_e4);
  const pct = (e4: number) => formatPercentE4(Math.min(e4, 1_000_000));
  return {
    id: null,
    name: null,
    source: 'account',
    pixPercent: pct(num(row.sale_fee_percent_e4)),
    pixFixedCents: num(row.sale_fee_fixed),
    boletoFixedCents: num(row.sale_fee_fixed),
    // a band's rate at its first installment (each installment after the first adds cardInstallmentPercent)
    creditPercent: { '1': pct(card), '2-6': pct(card + step), '7-12': pct(card + 6 * step) },
    debitPercent: pct(card),
    anticipationMonthlyPercent: pct(num(row.own_anticipation_e4)),
    cashoutFixedCents: num(row.cashout_fee_fixed),
    accountRates: {
      salePercent: pct(num(row.sale_fee_percent_e4)),
      saleFixedCents: num(row.sale_fee_fixed),
      cardPercent: pct(card),
      cardInstallmentPercent: pct(step),
      cashoutPercent: pct(num(row.cashout_fee_percent_e4)),
      cashoutFixedCents: num(row.cashout_fee_fixed),
    },
  };
}
