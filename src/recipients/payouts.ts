import { lockRecipientAvailable } from '../ledger/index.js';
import type { Db } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';
import type { Queue } from '../platform/jobs/queue.js';
import {
  createWithdrawalIn,
  MAX_CASHOUT_CENTS,
  MIN_CASHOUT_CENTS,
  type PixKeyType,
} from '../withdrawals/index.js';
import {
  claimPayoutPeriod,
  duePayoutRecipients,
  notePayoutPeriod,
  type PayoutCandidate,
} from './payouts.data.js';

/** How often the workers look for recipients whose period is due (a period is paid once, whoever looks). */
export const AUTO_PAYOUT_CHECK_EVERY_MS = 5 * 60_000;

/** Automatic payouts happen at this hour of São Paulo's day (decisions.md, "Split payments"). */
const PAYOUT_HOUR = 6;
const ZONE = 'America/Sao_Paulo';
const parts = new Intl.DateTimeFormat('en-US', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  hourCycle: 'h23',
});

/**
 * The periods due at `now`, as the São Paulo dates they began: `daily` the latest day whose 06:00 has passed;
 * `weekly` the latest Monday whose 06:00 has passed.
 */
export function duePeriods(now: Date): { daily: string; weekly: string } {
  const p = Object.fromEntries(parts.formatToParts(now).map((x) => [x.type, x.value]));
  const local = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day));
  const day = Number(p.hour) < PAYOUT_HOUR ? local - 86_400_000 : local;
  const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { daily: iso(day), weekly: iso(day - sinceMonday * 86_400_000) };
}

export interface AutoPayoutResult {
  /** Withdrawals made. */
  paid: number;
  /** Periods recorded without a withdrawal (nothing or too little available, or refused). */
  skipped: number;
}

/**
 * Pays each recipient with `transferInterval` daily or weekly its whole available balance once per period
 * (capped at the cashout maximum; below the minimum nothing is paid). Each recipient's period is claimed by a
 * row keyed (recipient, period date) in the transaction that creates its withdrawal: two workers running this
 * at once make one withdrawal, the second finding the period taken. The withdrawal then follows the
 * account's cashouts (the same rules, fees and payout worker) to the recipient's own PIX key.
 */
export async function runAutomaticPayouts(
  db: Db,
  queue: Queue,
  now: Date,
  onError: (err: unknown, recipientId: number) => void = (err) => {
    throw err;
  },
): Promise<AutoPayoutResult> {
  const periods = duePeriods(now);
  const result: AutoPayoutResult = { paid: 0, skipped: 0 };
  let after = 0;
  for (;;) {
    const due = await duePayoutRecipients(db, periods, after, 200);
    if (due.length === 0) return result;
    for (const r of due) {
      after = r.id;
      try {
        const outcome = await payOne(db, queue, r);
        if (outcome === 'paid') result.paid++;
        else if (outcome === 'skipped') result.skipped++;
      } catch (err) {
        // its period stays unclaimed (the transaction rolled back): the next round tries it again
        onError(err, r.id);
      }
    }
  }
}

async function payOne(db: Db, queue: Queue, r: PayoutCandidate): Promise<'paid' | 'skipped' | 'taken'> {
  return db.tx(async (tx) => {
    if (!(await claimPayoutPeriod(tx, r.id, r.period))) return 'taken';
    const available = await lockRecipientAvailable(tx, r.id);
    const amount = Math.min(available, MAX_CASHOUT_CENTS);
    if (amount < MIN_CASHOUT_CENTS) {
      await notePayoutPeriod(tx, r.id, r.period, {
        skipped: amount <= 0 ? 'NOTHING_AVAILABLE' : 'MINIMUM_VALUE',
      });
      return 'skipped';
    }
    const outcome = await createWithdrawalIn(
      tx,
      queue,
      r.account_id,
      { id: r.id, uuid: r.uuid },
      { amountCents: amount, pixKey: r.pix_key, pixKeyType: r.pix_key_type as PixKeyType },
      `transfer_interval:${r.transfer_interval}`,
    );
    if (outcome instanceof AppError) {
      await notePayoutPeriod(tx, r.id, r.period, { skipped: outcome.code });
      return 'skipped';
    }
    await notePayoutPeriod(tx, r.id, r.period, { withdrawalId: outcome.withdrawal.id });
    return 'paid';
  });
}
