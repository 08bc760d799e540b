import type { Db, Queryable } from '../platform/db/db.js';
import { validation } from '../platform/errors/app-error.js';
import { isRealDate, REAL_DATE_RULE } from '../platform/time/calendar.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { postEntry } from './ledger.js';

/** CARD_SETTLEMENT_DAYS: installment n of a card sale reaches available n × this many days after capture. */
let settlementDays = 30;

/** Set once at start from the configuration (the settlement path schedules with it). */
export function setCardSettlementDays(days: number): void {
  settlementDays = days;
}

/** One party's share of a captured card sale, to be received in installments. */
export interface ReceivableShare {
  accountId: number;
  /** A split sale's recipient: the installments of its share are its own (account_id left null). */
  recipientId?: number;
  saleId: number;
  saleUuid: string;
  installments: number;
  amount: number;
}

/**
 * The shares of captured card sales split into their installments (the remainder of the division on the first),
 * each due `settlementDays` × its number days after today in São Paulo; every share in one statement, in the
 * captures' transaction. A second call for the same sale adds nothing. A share of nothing (the platform's, of a
 * sale split whole to its recipients) has no installments.
 */
export async function scheduleReceivables(tx: Queryable, shares: ReceivableShare[]): Promise<void> {
  const rows = shares.flatMap((r) => {
    if (r.amount <= 0) return [];
    const n = Math.max(1, r.installments);
    const each = Math.floor(r.amount / n);
    const recipient = r.recipientId ?? null;
    return Array.from({ length: n }, (_, i) => ({
      accountId: recipient === null ? r.accountId : null,
      recipient,
      saleId: r.saleId,
      saleUuid: r.saleUuid,
      installment: i + 1,
      installments: n,
      amount: i === 0 ? r.amount - each * (n - 1) : each,
    }));
  });
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO receivables (account_id, recipient_id, sale_id, sale_uuid, installment, installments, amount, due_date)
     SELECT a, r, s, u, i, n, amount, (now() AT TIME ZONE 'America/Sao_Paulo')::date + ($8::int * i)::int
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::uuid[], $5::int[], $6::int[], $7::bigint[])
         AS v(a, r, s, u, i, n, amount)
     ON CONFLICT DO NOTHING`,
    [
      rows.map((r) => r.accountId),
      rows.map((r) => r.recipient),
      rows.map((r) => r.saleId),
      rows.map((r) => r.saleUuid),
      rows.map((r) => r.installment),
      rows.map((r) => r.installments),
      rows.map((r) => r.amount),
      settlementDays,
    ],
    // planned once per connection: its text is fixed (every card capture's settlement runs it)
    { prepare: 'receivables_schedule_v1' },
  );
}

/**
 * The daily job: every installment due by today (São Paulo) moves from receivable to available, one ledger entry
 * each (`receivable.settled`), marked settled in the same transaction; 100 at a time, rows another run holds
 * skipped. Running it again moves nothing twice.
 */
export async function settleDueReceivables(db: Db): Promise<number> {
  let total = 0;
  for (;;) {
    const moved = await db.tx(async (tx) => {
      const due = await tx.query<{
        id: number;
        account_id: number | null;
        recipient_id: number | null;
        amount: number;
      }>(
        `SELECT id, account_id, recipient_id, amount FROM receivables
          WHERE settled_at IS NULL AND due_date <= (now() AT TIME ZONE 'America/Sao_Paulo')::date
          ORDER BY account_id NULLS LAST, recipient_id, id LIMIT 100 FOR UPDATE SKIP LOCKED`,
      );
      for (const r of due) {
        const holder =
          r.recipient_id === null
            ? { accountId: Number(r.account_id) }
            : { recipientId: Number(r.recipient_id) };
        await postEntry(tx, {
          kind: 'receivable.settled',
          refType: 'receivable',
          refId: Number(r.id),
          postings: [
            { target: { ...holder, bucket: 'receivable' }, amount: -Number(r.amount) },
            { target: { ...holder, bucket: 'available' }, amount: Number(r.amount) },
          ],
        });
      }
      if (due.length > 0) {
        await tx.query('UPDATE receivables SET settled_at = now() WHERE id = ANY($1::bigint[])', [
          due.map((r) => r.id),
        ]);
      }
      return due.length;
    });
    total += moved;
    if (moved < 100) return total;
  }
}

/** Whose installments: a merchant's (account) or a split sale's recipient's. */
export type ReceivableHolder = { accountId: number } | { recipientId: number };

/** An installment a refund took from, and how much (given back if the refund ends not made). */
export interface ReceivableTake {
  id: number;
  amount: number;
}

/**
 * A refund takes from the sale's installments of `holder` not yet paid out (settled, or anticipated: a paid
 * anticipation settles the installments it took; one still waiting for its decision finds them changed and is
 * refused), the last ones first,
 * up to `amount` (in the refund's transaction, the rows locked). Returns what it took, row by row; the caller
 * posts the same total out of the holder's receivable bucket.
 */
export async function takeSaleReceivables(
  tx: Queryable,
  holder: ReceivableHolder,
  saleId: number,
  amount: number,
): Promise<ReceivableTake[]> {
  if (amount <= 0) return [];
  const recipient = 'recipientId' in holder;
  const rows = await tx.query<{ id: string; amount: string }>(
    `SELECT id, amount FROM receivables
      WHERE sale_id = $1 AND ${recipient ? 'recipient_id' : 'account_id'} = $2
        AND settled_at IS NULL AND amount > 0
      ORDER BY installment DESC FOR UPDATE`,
    [saleId, recipient ? holder.recipientId : holder.accountId],
  );
  const takes: ReceivableTake[] = [];
  let left = amount;
  for (const r of rows) {
    if (left === 0) break;
    const take = Math.min(left, Number(r.amount));
    takes.push({ id: Number(r.id), amount: take });
    left -= take;
  }
  if (takes.length > 0) {
    await tx.query(
      `UPDATE receivables r SET amount = r.amount - v.take
         FROM unnest($1::bigint[], $2::bigint[]) AS v(id, take) WHERE r.id = v.id`,
      [takes.map((t) => t.id), takes.map((t) => t.amount)],
    );
  }
  return takes;
}

/**
 * A refund that ended not made gives its installments back: those not paid out meanwhile take
 * their amounts again. Returns, per holder, what went back into installments; the rest (installments that
 * settled meanwhile) is the caller's to return to available.
 */
export async function restoreSaleReceivables(
  tx: Queryable,
  takes: ReceivableTake[],
): Promise<{ holder: ReceivableHolder; amount: number }[]> {
  if (takes.length === 0) return [];
  const rows = await tx.query<{ account_id: string | null; recipient_id: string | null; amount: string }>(
    `UPDATE receivables r SET amount = r.amount + v.take
       FROM unnest($1::bigint[], $2::bigint[]) AS v(id, take)
      WHERE r.id = v.id AND r.settled_at IS NULL
      RETURNING r.account_id, r.recipient_id, v.take AS amount`,
    [takes.map((t) => t.id), takes.map((t) => t.amount)],
  );
  const out = new Map<string, { holder: ReceivableHolder; amount: number }>();
  for (const r of rows) {
    const holder: ReceivableHolder =
      r.recipient_id === null ? { accountId: Number(r.account_id) } : { recipientId: Number(r.recipient_id) };
    const key = JSON.stringify(holder);
    const entry = out.get(key) ?? { holder, amount: 0 };
    entry.amount += Number(r.amount);
    out.set(key, entry);
  }
  return [...out.values()];
}

/** An account's installments due between two dates (inclusive), by date. */
export interface ReceivableDay {
  date: string;
  amount: number;
  installments: {
    saleUuid: string;
    installment: number;
    installments: number;
    amount: number;
    settled: boolean;
  }[];
}

export async function receivablesBetween(
  q: Queryable,
  accountId: number,
  from: string,
  to: string,
): Promise<ReceivableDay[]> {
  const rows = await q.query<{
    date: string;
    sale_uuid: string;
    installment: number;
    installments: number;
    amount: number;
    settled: boolean;
  }>(
    `SELECT to_char(due_date, 'YYYY-MM-DD') AS date, sale_uuid, installment, installments, amount,
            settled_at IS NOT NULL AS settled
       FROM receivables WHERE account_id = $1 AND due_date BETWEEN $2::date AND $3::date
      ORDER BY due_date, id`,
    [accountId, from, to],
  );
  const days: ReceivableDay[] = [];
  for (const r of rows) {
    let day = days.at(-1);
    if (day?.date !== r.date) {
      day = { date: r.date, amount: 0, installments: [] };
      days.push(day);
    }
    day.amount += Number(r.amount);
    day.installments.push({
      saleUuid: r.sale_uuid,
      installment: Number(r.installment),
      installments: Number(r.installments),
      amount: Number(r.amount),
      settled: r.settled,
    });
  }
  return days;
}

/** Cents still to settle (the receivable bucket). */
export async function receivableBalance(q: Queryable, accountId: number): Promise<number> {
  const [row] = await q.query<{ balance: number }>(
    "SELECT balance FROM ledger_accounts WHERE account_id = $1 AND bucket = 'receivable'",
    [accountId],
  );
  return Number(row?.balance ?? 0);
}

/**
 * `ledger verify`: each account's receivable bucket holds exactly its installments not yet settled, and so
 * does each recipient's.
 */
export async function receivableMismatches(
  q: Queryable,
): Promise<{ code: string; balance: number; scheduled: number }[]> {
  return q.query(
    `SELECT la.code, la.balance, COALESCE(r.scheduled, 0)::bigint AS scheduled
       FROM ledger_accounts la
       LEFT JOIN (SELECT account_id, sum(amount) AS scheduled FROM receivables
                   WHERE settled_at IS NULL AND account_id IS NOT NULL
                   GROUP BY account_id) r ON r.account_id = la.account_id
      WHERE la.bucket = 'receivable' AND la.account_id IS NOT NULL AND la.balance <> COALESCE(r.scheduled, 0)
     UNION ALL
     SELECT la.code, la.balance, COALESCE(r.scheduled, 0)::bigint AS scheduled
       FROM ledger_accounts la
       LEFT JOIN (SELECT recipient_id, sum(amount) AS scheduled FROM receivables
                   WHERE settled_at IS NULL AND recipient_id IS NOT NULL
                   GROUP BY recipient_id) r ON r.recipient_id = la.recipient_id
      WHERE la.bucket = 'receivable' AND la.recipient_id IS NOT NULL AND la.balance <> COALESCE(r.scheduled, 0)
      ORDER BY code`,
  );
}

const DAY_MS = 86_400_000;

/** The period a receivables list asks for: from today (São Paulo) and 90 days on when not given. */
export function receivablesPeriod(
  from: string | undefined,
  to: string | undefined,
  now = new Date(),
): { from: string; to: string } {
  const today = toSaoPaulo(now).slice(0, 10);
  const start = from === undefined ? today : dateArg(from, 'from');
  const end =
    to === undefined
      ? new Date(Date.parse(`${start}T00:00:00Z`) + 90 * DAY_MS).toISOString().slice(0, 10)
      : dateArg(to, 'to');
  const days = (Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / DAY_MS;
  if (days < 0) throw validation('from must not be after to');
  if (days > 366) throw validation('from and to must be at most 366 days apart');
  return { from: start, to: end };
}

function dateArg(raw: string, field: string): string {
  if (!isRealDate(raw)) throw validation(`${field} must be ${REAL_DATE_RULE}`);
  return raw;
}
