import { randomUUID } from 'node:crypto';
import { saleFeeRates } from '../accounts/index.js';
import type { Queryable } from '../platform/db/db.js';
import { insertSale, lockSale, type NewSaleRow, setSaleAmount } from './data.js';
import { type FeeMethod, feesOfSale, type SaleFees, saleFees } from './fees.js';
import { countWithoutFact, notifySaleStatus, refusal } from './settlement/transition.js';
import { planSplit } from './split.js';
import type { SaleRow } from './types.js';

export type NewSale = Omit<NewSaleRow, 'uuid' | 'splitPlan' | keyof SaleFees> & {
  /** The charge's `split` as the request gave it (checked here: 400 when it cannot be). */
  split?: unknown;
};

/**
 * A processor reported a new sale: stored as PENDENTE, with fees from the account's plan (or own rates) now. `notifyPending`
 * records sale.pending (a charge awaiting payment); a recurring debit that is already paid skips it.
 */
export async function createSale(
  tx: Queryable,
  input: NewSale,
  options: { notifyPending: boolean; uuid?: string },
): Promise<SaleRow> {
  const fees = await saleFees(tx, input.accountId, input.amount, input);
  const { split, ...rest } = input;
  const splitPlan = await planSplit(tx, input.accountId, input.amount, fees.systemFee, split);
  if (splitPlan) {
    // the reserve is the platform's: held from its own share only
    const platform = splitPlan.parties[splitPlan.parties.length - 1]!;
    fees.reserveAmount = Math.min(fees.reserveAmount, Math.max(0, platform.net));
  }
  // the API contract: shipping is for physical products only, null for digital ones (Sale object and notifications)
  const shipping = input.items.some((item) => item.tangible) ? input.shipping : null;
  const sale = await insertSale(tx, {
    ...rest,
    shipping,
    ...fees,
    splitPlan,
    uuid: options.uuid ?? randomUUID(),
  });
  if (options.notifyPending) await notifySaleStatus(tx, sale);
  else countWithoutFact(tx, sale);
  return sale;
}

/**
 * Checks a charge's fee and split before a processor is asked (nothing written): an amount the fee takes whole,
 * or a split that cannot be, is a 400 with no charge opened anywhere.
 */
export async function checkChargeSplit(
  q: Queryable,
  accountId: number,
  amount: number,
  method: FeeMethod,
  split: unknown,
): Promise<void> {
  const fees = await saleFees(q, accountId, amount, method);
  await planSplit(q, accountId, amount, fees.systemFee, split);
}

/**
 * A payment link's or checkout session's split, checked when it is made against every charge it may make (its
 * amounts and methods: the fee, hence whether the fee payer's share covers it, depends on both), so a payer
 * never meets a split that cannot be. Nothing when there is no split.
 */
export async function checkSplitOf(
  q: Queryable,
  accountId: number,
  split: unknown,
  charges: { amount: number; method: FeeMethod }[],
): Promise<void> {
  if (split === undefined || split === null) return;
  for (const c of charges) await checkChargeSplit(q, accountId, c.amount, c.method, split);
}

/**
 * A card sale captured for less than it was authorized: its amount and fees become those of the captured
 * amount, in the caller's transaction, before it moves to PAGO. Only an open sale's amount changes.
 */
export async function captureLess(tx: Queryable, saleId: number, amount: number): Promise<void> {
  const sale = await lockSale(tx, saleId);
  if (!sale) return;
  if (sale.status !== 'EM_PROCESSAMENTO' && sale.status !== 'PENDENTE') throw refusal(sale.status, 'PAGO');
  if (amount === Number(sale.amount)) return;
  // priced on the terms the sale was created with: a plan changed since does not reach it
  const rates = await saleFeeRates(tx, [sale.account_id]);
  const fees = feesOfSale(rates, sale, amount);
  await setSaleAmount(tx, saleId, { amount, ...fees });
}
