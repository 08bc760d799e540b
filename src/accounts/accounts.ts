import { CLI_ACTOR, recordAudit } from '../audit/index.js';
import {
  checkPassword,
  clearTwoFactor,
  endSessionsOnNewPassword,
  hashPassword,
  insertOwner,
  lockFirstOwner,
  ownerHasTwoFactor,
  setPasswordHash,
} from '../auth/index.js';
import { ensureMerchantLedger } from '../ledger/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { isUniqueViolation } from '../platform/db/db.js';
import { AppError, conflict, notFound, validation } from '../platform/errors/app-error.js';
import { formatPercentE4, formatReais } from '../platform/money/money.js';
import { isEmailAddress } from '../platform/net/email.js';
import { nameProblem } from '../platform/text/names.js';
import { defaultFeePlanName, feePlanIdByName } from './fee-plans.js';

// the command that creates accounts loads this file alone: the default it reads is set through it
export { setDefaultFeePlan } from './fee-plans.js';

import type { AccountStatus } from './status.js';

export interface AccountRow {
  id: number;
  name: string;
  email: string;
  cashout_fee_fixed: number;
  cashout_fee_percent_e4: number;
  sale_fee_fixed: number;
  sale_fee_percent_e4: number;
  reserve_percent_e4: number;
  card_fee_percent_e4: number | null;
  card_installment_fee_percent_e4: number;
  /** The account's fee plan (null: priced by its own columns above). */
  fee_plan_id: number | null;
  anticipation_monthly_percent_e4: number;
  api_cashout_enabled: boolean;
  transfers_enabled: boolean;
  cart_recovery_email: boolean;
  /** Two-factor login of the account's first owner (the one the CLI's password and two-factor options act on). */
  owner_totp: boolean;
}

export interface AccountUpdate {
  cashoutFeeFixed?: number;
  cashoutFeePercentE4?: number;
  saleFeeFixed?: number;
  saleFeePercentE4?: number;
  reservePercentE4?: number;
  cardFeePercentE4?: number;
  cardInstallmentFeePercentE4?: number;
  anticipationMonthlyPercentE4?: number;
  apiCashout?: boolean;
  transfers?: boolean;
  /** The payer of an abandoned checkout cart gets one recovery e-mail. */
  cartRecoveryEmail?: boolean;
  /** A new panel password (the owner forgot theirs): every panel session of the account ends. */
  password?: string;
  /** Two-factor login off (the owner lost their authenticator). */
  twoFactorOff?: boolean;
}

/** A self sign-up's profile (decisions.md, "The operators' console"): checked by the onboarding module. */
export interface AccountProfile {
  legalName: string;
  document: string;
  phone: string;
  address: Record<string, string>;
}

/**
 * Approval needs prices someone chose: the account's fee plan, or else FEE_PLAN_DEFAULT's, which the account is
 * put on now (in the caller's transaction). Neither → 409 FEE_PLAN_REQUIRED, nothing changed.
 */
export async function requireFeePlan(tx: Queryable, accountId: number): Promise<void> {
  const [row] = await tx.query<{ fee_plan_id: number | null; status: AccountStatus }>(
    'SELECT fee_plan_id, status FROM accounts WHERE id = $1 FOR UPDATE',
    [accountId],
  );
  // an account not waiting for review is not approved at all: its status is the answer (409 INVALID_STATUS)
  if (!row || row.fee_plan_id !== null || row.status !== 'pending_review') return;
  const defaultFeePlan = defaultFeePlanName();
  const planId = defaultFeePlan === null ? null : await feePlanIdByName(tx, defaultFeePlan);
  if (planId === null) {
    throw new AppError(
      'FEE_PLAN_REQUIRED',
      'The account has no fee plan and FEE_PLAN_DEFAULT names none: assign one (POST /api/ops/accounts/{id}/fee-plan) before approving it',
    );
  }
  await tx.query('UPDATE accounts SET fee_plan_id = $2, updated_at = now() WHERE id = $1', [
    accountId,
    planId,
  ]);
}

export async function createAccount(
  db: Db,
  input: { name: string; email: string; password: string; status?: AccountStatus; profile?: AccountProfile },
  inTx?: (tx: Queryable, accountId: number) => Promise<void>,
): Promise<{ id: number; email: string; name: string }> {
  const name = input.name.trim();
  const email = input.email.trim().toLowerCase();
  const problem = nameProblem(name);
  if (problem) throw validation(`name ${problem}`);
  if (!isEmailAddress(email)) throw validation(`"${input.email}" is not an email address`);
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.tx(async (tx) => {
      const defaultFeePlan = defaultFeePlanName();
      const planId = defaultFeePlan === null ? null : await feePlanIdByName(tx, defaultFeePlan);
      // a default naming no plan is the operator's mistake: no account is made active at prices nobody chose (one
      // waiting for review is made, without a plan: its approval asks for one, FEE_PLAN_REQUIRED)
      if (defaultFeePlan !== null && planId === null && input.status !== 'pending_review') {
        throw new Error(`FEE_PLAN_DEFAULT names no fee plan ("${defaultFeePlan}"): create it in the console`);
      }
      const [row] = await tx.query<{ id: number; email: string; name: string }>(
        `INSERT INTO accounts (name, email, status, legal_name, document, phone, address, fee_plan_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, email, name`,
        [
          name,
          email,
          input.status ?? 'active',
          input.profile?.legalName ?? null,
          input.profile?.document ?? null,
          input.profile?.phone ?? null,
          input.profile ? JSON.stringify(input.profile.address) : null,
          planId,
        ],
      );
      // the account's first user, its owner (decisions.md, Teams)
      await insertOwner(tx, row!.id, { name, email, passwordHash });
      await ensureMerchantLedger(tx, row!.id);
      if (inTx) await inTx(tx, row!.id);
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`an account or user with email ${email} already exists`);
    throw err;
  }
}

export async function getAccount(q: Queryable, id: number): Promise<AccountRow | null> {
  const [row] = await q.query<Omit<AccountRow, 'owner_totp'>>('SELECT * FROM accounts WHERE id = $1', [id]);
  return row ? { ...row, owner_totp: await ownerHasTwoFactor(q, id) } : null;
}

const FEE_FIELDS = [
  'cashoutFeeFixed',
  'cashoutFeePercentE4',
  'saleFeeFixed',
  'saleFeePercentE4',
  'cardFeePercentE4',
  'cardInstallmentFeePercentE4',
  'anticipationMonthlyPercentE4',
] as const;

export async function updateAccount(db: Db, id: number, update: AccountUpdate): Promise<AccountRow> {
  const sets: string[] = [];
  const values: unknown[] = [id];
  const add = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (update.cashoutFeeFixed !== undefined) add('cashout_fee_fixed', update.cashoutFeeFixed);
  if (update.cashoutFeePercentE4 !== undefined) add('cashout_fee_percent_e4', update.cashoutFeePercentE4);
  if (update.saleFeeFixed !== undefined) add('sale_fee_fixed', update.saleFeeFixed);
  if (update.saleFeePercentE4 !== undefined) add('sale_fee_percent_e4', update.saleFeePercentE4);
  if (update.reservePercentE4 !== undefined) add('reserve_percent_e4', update.reservePercentE4);
  if (update.cardFeePercentE4 !== undefined) add('card_fee_percent_e4', update.cardFeePercentE4);
  if (update.cardInstallmentFeePercentE4 !== undefined) {
    add('card_installment_fee_percent_e4', update.cardInstallmentFeePercentE4);
  }
  if (update.anticipationMonthlyPercentE4 !== undefined) {
    add('anticipation_monthly_percent_e4', update.anticipationMonthlyPercentE4);
  }
  // a fee given here is the account's own plan from now on: it leaves the fee plan it was on
  if (FEE_FIELDS.some((f) => update[f] !== undefined)) sets.push('fee_plan_id = NULL');
  if (update.apiCashout !== undefined) add('api_cashout_enabled', update.apiCashout);
  if (update.transfers !== undefined) add('transfers_enabled', update.transfers);
  if (update.cartRecoveryEmail !== undefined) add('cart_recovery_email', update.cartRecoveryEmail);
  let passwordHash: string | null = null;
  if (update.password !== undefined) {
    checkPassword(update.password);
    passwordHash = await hashPassword(update.password);
  }
  if (sets.length === 0 && passwordHash === null && !update.twoFactorOff) {
    throw validation('nothing to update: give at least one setting');
  }
  return db.tx(async (tx) => {
    const [row] = await tx.query<AccountRow>(
      `UPDATE accounts SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`,
      values,
    );
    if (!row) throw notFound(`no account with id ${id}`);
    await recordAudit(tx, id, CLI_ACTOR, { action: 'account.updated', target: `account:${id}` });
    if (passwordHash !== null || update.twoFactorOff) {
      const owner = await lockFirstOwner(tx, id);
      if (!owner) throw notFound(`account ${id} has no active owner`);
      // the audit log records a change: two-factor turned off when it was on, not a command repeated
      if (update.twoFactorOff && (await clearTwoFactor(tx, owner.id))) {
        await recordAudit(tx, id, CLI_ACTOR, { action: 'totp.disabled', target: `user:${owner.id}` });
      }
      if (passwordHash !== null) {
        await setPasswordHash(tx, owner.id, passwordHash);
        await endSessionsOnNewPassword(tx, owner.id, owner.email);
      }
    }
    return (await getAccount(tx, id))!;
  });
}

/** The operator-facing view of an account's settings (CLI output). */
export function accountSettingsView(row: AccountRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    cashoutFeeFixed: formatReais(row.cashout_fee_fixed),
    cashoutFeePercent: formatPercentE4(row.cashout_fee_percent_e4),
    saleFeePercent: formatPercentE4(row.sale_fee_percent_e4),
    saleFeeFixed: formatReais(row.sale_fee_fixed),
    reservePercent: formatPercentE4(row.reserve_percent_e4),
    cardFeePercent: formatPercentE4(row.card_fee_percent_e4 ?? row.sale_fee_percent_e4),
    cardInstallmentFeePercent: formatPercentE4(row.card_installment_fee_percent_e4),
    anticipationMonthlyPercent: formatPercentE4(row.anticipation_monthly_percent_e4),
    // the fees above apply when the account has no plan; on a plan, the plan's do (GET /api/fees)
    feePlanId: row.fee_plan_id === null ? 'none' : String(row.fee_plan_id),
    apiCashout: row.api_cashout_enabled ? 'on' : 'off',
    transfers: row.transfers_enabled ? 'on' : 'off',
    cartRecoveryEmail: row.cart_recovery_email ? 'on' : 'off',
    twoFactor: row.owner_totp ? 'on' : 'off',
  };
}
