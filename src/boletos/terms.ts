import { nextBusinessDay } from '../payment-standards/index.js';
import { addDays } from '../platform/time/calendar.js';
import { BoletoInputError } from './errors.js';

// What a boleto asks of its payer after (fine, interest) or before (discount) the due date, and what a payment
// on a given day must be. Percentages are kept as integer hundredths of a percent ("2.00" → 200).

export interface BoletoTerms {
  dueDate: string;
  daysAfterDue: number;
  /** Fine, hundredths of a percent of the amount, once after the due date. */
  fineBp: number;
  /** Simple interest, hundredths of a percent a month (30 calendar days), per calendar day after the due date. */
  monthlyInterestBp: number;
  discount: { amountCents: number; untilDate: string } | null;
}

export interface BoletoTermsIn {
  dueDate: string;
  daysAfterDue?: number;
  finePercent?: string;
  monthlyInterestPercent?: string;
  discount?: { amountCents: number; untilDate: string };
}

export const MAX_DAYS_AHEAD = 365;
export const MAX_DAYS_AFTER_DUE = 60;
const DAY_MS = 86_400_000;

/** Calendar days from a to b (YYYY-MM-DD). */
export const daysBetween = (a: string, b: string) =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);

function isDate(raw: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw)) return false;
  const at = Date.parse(`${raw}T00:00:00Z`);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === raw;
}

/** "2.00" → 200; percentages up to 100 with at most two decimals. */
function percentBp(raw: string | undefined, field: string, max: number): number {
  if (raw === undefined) return 0;
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(raw);
  const bp = m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : Number.NaN;
  if (!(bp <= max))
    throw new BoletoInputError(`boleto.${field} must be a percentage like "2.00", at most ${max / 100}`);
  return bp;
}

/** Checks the request's terms against `today` (São Paulo's date) and the amount. */
export function parseTerms(input: BoletoTermsIn, amountCents: number, today: string): BoletoTerms {
  if (!isDate(input.dueDate)) throw new BoletoInputError('boleto.dueDate must be a date YYYY-MM-DD');
  const ahead = daysBetween(today, input.dueDate);
  if (ahead < 0 || ahead > MAX_DAYS_AHEAD) {
    throw new BoletoInputError(
      `boleto.dueDate must be from today (${today}) to ${MAX_DAYS_AHEAD} days ahead`,
    );
  }
  const daysAfterDue = input.daysAfterDue ?? 0;
  if (!Number.isInteger(daysAfterDue) || daysAfterDue < 0 || daysAfterDue > MAX_DAYS_AFTER_DUE) {
    throw new BoletoInputError(`boleto.daysAfterDue must be an integer from 0 to ${MAX_DAYS_AFTER_DUE}`);
  }
  const fineBp = percentBp(input.finePercent, 'finePercent', 10000);
  const monthlyInterestBp = percentBp(input.monthlyInterestPercent, 'monthlyInterestPercent', 10000);
  let discount: BoletoTerms['discount'] = null;
  if (input.discount) {
    const { amountCents: cents, untilDate } = input.discount;
    if (!Number.isInteger(cents) || cents < 1 || cents >= amountCents) {
      throw new BoletoInputError('boleto.discount.amountCents must be at least 1 and less than the amount');
    }
    if (!isDate(untilDate) || untilDate < today || untilDate > input.dueDate) {
      throw new BoletoInputError('boleto.discount.untilDate must be a date from today to the due date');
    }
    discount = { amountCents: cents, untilDate };
  }
  return { dueDate: input.dueDate, daysAfterDue, fineBp, monthlyInterestBp, discount };
}

/**
 * The due date as payments are judged by it: a date on a weekend or a national holiday is moved to the next
 * business day (the API Pix's cobv, FEBRABAN), and the discount's date, the last payable day, the fine and the
 * interest with it. The boleto keeps its date as issued (its barcode's due factor, its page, `dueDate`).
 */
export const payableDueDate = (t: BoletoTerms) => nextBusinessDay(t.dueDate);

/** The last day the boleto can be paid: `daysAfterDue` calendar days after its due date as moved, itself moved. */
export const lastPayableDay = (t: BoletoTerms) => nextBusinessDay(addDays(payableDueDate(t), t.daysAfterDue));

/**
 * What a payment made on `day` must be, in cents: less the discount up to its date; the amount up to the due
 * date; after it the fine (once) plus simple interest per calendar day, each rounded half up to the cent. Each
 * date is taken as moved to a business day (payableDueDate): a boleto due on a Saturday is paid on Monday at its
 * face value, and its interest counts from that Monday.
 */
export function amountDueOn(amountCents: number, t: BoletoTerms, day: string): number {
  if (t.discount && day <= nextBusinessDay(t.discount.untilDate)) return amountCents - t.discount.amountCents;
  const late = daysBetween(payableDueDate(t), day);
  if (late <= 0) return amountCents;
  const fine = Math.floor((amountCents * t.fineBp + 5000) / 10000);
  // monthly percent / 30 per day: amount × bp × days / (10000 × 30)
  const interest = Math.floor((amountCents * t.monthlyInterestBp * late + 150_000) / 300_000);
  return amountCents + fine + interest;
}

export const formatBp = (bp: number) => `${Math.trunc(bp / 100)}.${String(bp % 100).padStart(2, '0')}`;
