import { validation } from '../platform/errors/app-error.js';
import { MAX_CHARGE_CENTS } from '../platform/money/money.js';
import { isRealDate, REAL_DATE_RULE } from '../platform/time/calendar.js';

/** What a merchant asks to anticipate: an amount of receivables, or every installment due up to a date. */
export type AnticipationAsk = { amountCents: number } | { upTo: string };

export interface Installment {
  id: number;
  saleId: number;
  date: string;
  amount: number;
}

export interface Quote {
  grossCents: number;
  feeCents: number;
  netCents: number;
  receivables: { date: string; amountCents: number }[];
  installments: Installment[];
}

const DAY_MS = 86_400_000;

/** The body of simulate and create: exactly one of amountCents (whole cents, > 0) or upTo (YYYY-MM-DD). */
export function parseAsk(body: unknown): AnticipationAsk {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const keys = Object.keys(b);
  if (keys.length !== 1 || !(keys[0] === 'amountCents' || keys[0] === 'upTo')) {
    throw validation('give exactly one of amountCents (integer cents) or upTo (YYYY-MM-DD)');
  }
  if ('amountCents' in b) {
    const v = b.amountCents;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0 || v > MAX_CHARGE_CENTS) {
      throw validation('amountCents must be a positive integer number of cents');
    }
    return { amountCents: v };
  }
  const v = b.upTo;
  if (!isRealDate(v)) throw validation(`upTo must be ${REAL_DATE_RULE}`);
  return { upTo: v };
}

/**
 * The installments an ask takes, from those free (earliest first): for an amount, the earliest whose sum first
 * reaches it (whole installments, so the gross may pass it by part of the last); for a date, every one due by
 * then. Null: not enough.
 */
export function chooseInstallments(ask: AnticipationAsk, open: Installment[]): Installment[] | null {
  if ('upTo' in ask) {
    const chosen = open.filter((i) => i.date <= ask.upTo);
    return chosen.length > 0 ? chosen : null;
  }
  const chosen: Installment[] = [];
  let sum = 0;
  for (const i of open) {
    if (sum >= ask.amountCents) break;
    chosen.push(i);
    sum += i.amount;
  }
  return sum >= ask.amountCents ? chosen : null;
}

/**
 * The fee: each installment's amount × the monthly percent × the days it is brought forward / 30, rounded
 * half-up to the cent per installment, in integer arithmetic; `today` is the São Paulo date.
 */
export function quoteOf(installments: Installment[], monthlyPercentE4: number, today: string): Quote {
  let gross = 0;
  let fee = 0;
  const byDate = new Map<string, number>();
  for (const i of installments) {
    const days = Math.max(
      0,
      Math.round((Date.parse(`${i.date}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS),
    );
    const divisor = 30n * 1_000_000n;
    fee += Number((BigInt(i.amount) * BigInt(monthlyPercentE4) * BigInt(days) + divisor / 2n) / divisor);
    gross += i.amount;
    byDate.set(i.date, (byDate.get(i.date) ?? 0) + i.amount);
  }
  fee = Math.min(fee, gross);
  return {
    grossCents: gross,
    feeCents: fee,
    netCents: gross - fee,
    receivables: [...byDate].map(([date, amountCents]) => ({ date, amountCents })),
    installments,
  };
}
