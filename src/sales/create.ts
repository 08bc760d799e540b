import { randomUUID } from 'node:crypto';
import { saleFeeRates } from '../accounts/index.js';
import { coalescedReader } from '../platform/concurrency/coalesced-reads.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, validation } from '../platform/errors/app-error.js';
import { insertSale, lockSale, type NewSaleRow, setSaleAmount } from './data.js';
import { type FeeMethod, feesAt, type SaleFees } from './fees.js';
import { type Repriced, repriced } from './repriced.js';
import { countWithoutFact, notifySaleStatus, refusal } from './settlement/transition.js';
import { planSplit, splitShortfall } from './split.js';
import type { SaleRow } from './types.js';

export type NewSale = Omit<NewSaleRow, 'uuid' | 'splitPlan' | keyof SaleFees> & {
  /** The charge's `split` as the request gave it (checked here: 400 when it cannot be). */
  split?: unknown;
};

/**
 * Which door opens a sale, for the account's standing: `sandbox` (the sandbox's own sale routes) is open to an
 * account waiting for review (it tries its integration before approval); every other door (`charge`: the API, the panel, payer
 * pages, renewals, Pix Automático cycles) needs it active.
 */
export type SaleDoor = 'charge' | 'sandbox';

/**
 * The admission of every sale, and the only way one is stored (insertSale is called from here alone: a test
 * holds it so): the account's standing first, read with its rates in one query, then the charge's own checks
 * (the fee against the amount, the split), then the fee plan in force fixes its fees. The door's own checks
 * before this (the key's scope, the card's velocity counts at tokenization, the risk rules, which the caller
 * decides with the card or payer in hand and passes as `risk`) are the callers'. Stored as PENDENTE;
 * `notifyPending` records sale.pending (a charge awaiting payment); a recurring debit already paid skips it.
 */
export async function createSale(
  tx: Queryable,
  input: NewSale,
  options: {
    notifyPending: boolean;
    uuid?: string;
    door?: SaleDoor;
    /** The account's standing and rates as checkChargeSplit read them for this charge (not read again). */
    rates?: SaleRates;
  },
): Promise<SaleRow> {
  const rates = options.rates ?? (await saleFeeRates(tx, [input.accountId]));
  const refusal = standingRefusal(rates.get(Number(input.accountId))?.status, options.door ?? 'charge');
  if (refusal) throw refusal;
  const fees = feesAt(rates, input.accountId, input.amount, input);
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

/** The account's standing and fee rates, as saleFeeRates reads them. */
export type SaleRates = Awaited<ReturnType<typeof saleFeeRates>>;

const isPool = (q: Queryable): q is Db => 'tx' in q;
type AccountRates = SaleRates extends Map<number, infer R> ? R : never;
const rateReaders = new WeakMap<Db, (accountId: number) => Promise<AccountRates | undefined>>();

/**
 * An account's standing and rates read outside a transaction, by a query the charges that arrive together share
 * (`coalescedReader`: nothing cached, each read is a query started after its charge arrived).
 */
async function sharedRates(db: Db, accountId: number): Promise<SaleRates> {
  let read = rateReaders.get(db);
  if (!read) {
    read = coalescedReader((ids: readonly number[]) => saleFeeRates(db, [...ids]));
    rateReaders.set(db, read);
  }
  const rates = await read(accountId);
  return new Map(rates ? [[accountId, rates]] : []);
}

/**
 * Checks a charge's fee and split before a processor is asked (nothing written): an amount the fee takes whole,
 * or a split that cannot be, is a 400 with no charge opened anywhere. Returns the rates it read, for createSale.
 */
export async function checkChargeSplit(
  q: Queryable,
  accountId: number,
  amount: number,
  method: FeeMethod,
  split: unknown,
  /** The least the charge may be paid (a boleto paid with its discount): its fee and split checked at it too. */
  lowestPaid?: number,
): Promise<SaleRates> {
  const rates = isPool(q) ? await sharedRates(q, accountId) : await saleFeeRates(q, [accountId]);
  const fees = feesAt(rates, accountId, amount, method);
  const plan = await planSplit(q, accountId, amount, fees.systemFee, split);
  if (lowestPaid !== undefined && lowestPaid !== amount) {
    let least: SaleFees;
    try {
      least = feesAt(rates, accountId, lowestPaid, method);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      throw validation(`paid with its discount, the charge's ${err.message}`);
    }
    const short =
      plan &&
      splitShortfall(
        { account_id: accountId, net_amount: 0, split: plan.json, split_recipients: plan.recipients },
        least.netAmount,
      );
    if (short) {
      throw validation(
        `paid with its discount (${lowestPaid} cents), the charge would leave the split's fee payer (${short.payer}) ${short.net} cents after the fee (${least.systemFee} cents) and the other parties' fixed shares`,
      );
    }
  }
  return rates;
}

/**
 * What a payment link, a checkout session or a subscription will charge, checked when it is made against every
 * charge it may make (its amounts and methods: the fee depends on both): each amount covers the account's fee,
 * and its split, if any, fits (the fee payer's share covers the fee), so a payer never meets a charge that cannot
 * be made.
 */
export async function checkChargesOf(
  q: Queryable,
  accountId: number,
  split: unknown,
  charges: { amount: number; method: FeeMethod }[],
): Promise<void> {
  if (split === undefined || split === null) {
    // each amount payable by each method: in one installment, a card's least fee (a payer picks more or not)
    const rates = await saleFeeRates(q, [accountId]);
    for (const c of charges) {
      if ((c.method.installments ?? 1) === 1) feesAt(rates, accountId, c.amount, c.method);
    }
    return;
  }
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
  await setSaleAmount(tx, saleId, { amount, ...(await capturedFees(tx, sale, amount)) });
}

/**
 * Whether a card sale may be captured for `amount`, less than authorized: asked before the acquirer is, since a
 * capture made there and refused here would charge the payer and credit nobody. 400 when the captured amount
 * does not cover the sale's fee, or leaves its split's fee payer below zero.
 */
export async function checkCaptureLess(q: Queryable, sale: SaleRow, amount: number): Promise<void> {
  if (amount !== Number(sale.amount)) await capturedFees(q, sale, amount);
}

/**
 * A sale's fees on a captured amount: priced on the terms the sale was created with (a plan changed since does
 * not reach it), the split's fee payer left with a share of zero or more.
 */
async function capturedFees(q: Queryable, sale: SaleRow, amount: number): Promise<Repriced> {
  const rates = await saleFeeRates(q, [sale.account_id]);
  const fees = repriced(rates, sale, amount);
  const short = splitShortfall(sale, fees.netAmount);
  if (short) {
    throw validation(
      `amountCents ${amount} cannot be captured: after the sale's fee (${fees.systemFee} cents) and the other parties' fixed shares, the split's fee payer (${short.payer}) would get ${short.net} cents`,
    );
  }
  return fees;
}

/** Why an account in this standing may not open a sale through this door; null when it may. */
function standingRefusal(status: string | undefined, door: SaleDoor): AppError | null {
  if (status === 'active' || (status === 'pending_review' && door === 'sandbox')) return null;
  if (status === 'pending_review') {
    return new AppError(
      'ACCOUNT_NOT_ACTIVE',
      'This account is waiting for review: charges open once it is approved',
    );
  }
  if (status === 'suspended')
    return new AppError('ACCOUNT_SUSPENDED', 'This account is suspended: charges are refused');
  return new AppError('ACCOUNT_NOT_ACTIVE', 'This account is closed: it opens no charges');
}
