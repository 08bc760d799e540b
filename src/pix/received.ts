import { type PixApiClient, PspError } from '../payment-standards/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import { parseReais } from '../platform/money/money.js';
import type { SaleSettler } from '../sales/index.js';
import {
  amountDue,
  checkTransition,
  findSaleByProcessorRef,
  isClosedUnpaid,
  isOpen,
  lockSale,
  moveSale,
  recordClosedChargePayment,
  recordPaidAgain,
  recordPaidAmount,
  salesByProcessorRefs,
  setPaidAtNoLaterThan,
} from '../sales/index.js';
import { applyRequestedDevolucao, applyUnrequestedDevolucao, type WarnLog } from './devolucoes.js';
import { BCB_PROCESSOR } from './txid.js';

/** The standard's Pix object, as far as the gateway reads it. */
export interface Pix {
  endToEndId: string;
  txid?: string;
  valor: string;
  /** When the Pix was paid (ISO 8601). */
  horario?: string;
  devolucoes?: { id: string; valor?: string; status: string }[];
}

export type PixOutcome =
  | 'credited'
  | 'duplicate'
  | 'not_confirmed'
  | 'not_credited'
  | 'refund_seen'
  /** the end-to-end id is not the standard's EndToEndId (`[a-zA-Z0-9]{32}`): not read back */
  | 'refused'
  /** the txid names none of our charges: not read back */
  | 'not_ours'
  /** past this request's read-back cap, or the PSP failed: the webhook is answered 503 so the PSP retries */
  | 'deferred';

/** The standard's EndToEndId. */
const END_TO_END_ID = /^[a-zA-Z0-9]{32}$/;
const TXID = /^[a-zA-Z0-9]{1,35}$/;
/** At most this many Pix are read back per webhook request; the rest wait for the PSP's retry. */
export const MAX_READ_BACKS = 100;

/** One entry of the webhook as it arrived: nothing in it is trusted, not even its types. */
export interface NotifiedPix {
  endToEndId?: unknown;
  txid?: unknown;
  devolucoes?: unknown;
}

/**
 * Handles the Pix a webhook announced. The webhook carries no signature, so nothing in it is believed: each
 * Pix is read back from the PSP (GET /pix/{e2eid}) and only what the PSP answers moves money. The anonymous
 * caller decides how many reads we make, so only entries that can matter are read back: a valid EndToEndId,
 * a txid naming one of our charges, and a Pix not confirmed yet (unless the entry lists devoluções: a refund's
 * final status comes that way); at most MAX_READ_BACKS per request. `complete` is false when some entries were
 * deferred (cap, PSP failure): the PSP is answered non-200 and sends the batch again. An invalid entry never
 * fails the others.
 */
export async function handleNotifiedPix(
  db: Db,
  queue: Queue,
  settler: SaleSettler,
  client: PixApiClient,
  notified: NotifiedPix[],
  log?: WarnLog,
): Promise<{ outcomes: PixOutcome[]; complete: boolean }> {
  const valid = (e: NotifiedPix) => typeof e.endToEndId === 'string' && END_TO_END_ID.test(e.endToEndId);
  const e2eids = notified.filter(valid).map((e) => e.endToEndId as string);
  // the standard's txid is letters and digits; anything else (even a NUL PostgreSQL refuses) names no charge
  const plainTxid = (t: unknown): t is string => typeof t === 'string' && TXID.test(t);
  const txids = notified.map((e) => e.txid).filter(plainTxid);
  const known = new Set(
    (
      await db.query<{ e2eid: string }>('SELECT e2eid FROM bcb_received_pix WHERE e2eid = ANY($1)', [e2eids])
    ).map((r) => r.e2eid),
  );
  const ours = new Set((await salesByProcessorRefs(db, BCB_PROCESSOR, txids)).map((r) => r.ref));
  const outcomes: PixOutcome[] = [];
  const seen = new Set<string>();
  let readBacks = 0;
  let complete = true;
  for (const item of notified) {
    if (!valid(item)) {
      outcomes.push('refused');
      continue;
    }
    const e2eid = item.endToEndId as string;
    const refunds = Array.isArray(item.devolucoes) && item.devolucoes.length > 0;
    if (seen.has(e2eid) || (known.has(e2eid) && !refunds)) {
      outcomes.push('duplicate');
      continue;
    }
    if (!plainTxid(item.txid) || !ours.has(item.txid)) {
      outcomes.push('not_ours');
      continue;
    }
    if (readBacks >= MAX_READ_BACKS || !complete) {
      // past the cap, or the PSP already failed in this request: left for the PSP's retry
      outcomes.push('deferred');
      complete = false;
      continue;
    }
    seen.add(e2eid);
    readBacks++;
    try {
      outcomes.push(await readBack(db, queue, settler, client, e2eid, log));
    } catch (err) {
      log?.warn({ e2eid, err: (err as Error).message }, 'Pix read-back failed; the PSP will send it again');
      outcomes.push('deferred');
      complete = false;
    }
  }
  return { outcomes, complete };
}

async function readBack(
  db: Db,
  queue: Queue,
  settler: SaleSettler,
  client: PixApiClient,
  e2eid: string,
  log?: WarnLog,
): Promise<PixOutcome> {
  const res = await client.call<Pix>('GET', `/pix/${e2eid}`);
  if (res.status === 404) return 'not_confirmed';
  if (res.status !== 200) throw new PspError(`GET /pix answered ${res.status}`, res.status);
  // credited first: a Pix refunded at the PSP before its webhook reached us is credited, then refunded
  const credit = await creditPix(db, queue, res.body);
  return (await settleRefunds(db, settler, res.body, log)) ?? credit;
}

/**
 * Devoluções of a read-back Pix that reached a final status. One the gateway requested takes its final status,
 * and DEVOLVIDO makes its refund (once: a repeat changes nothing); NAO_REALIZADO ends the refund not made, its
 * money the merchant's again. One it did not request is recorded; DEVOLVIDO of the full amount → ESTORNADO too.
 */
export async function settleRefunds(
  db: Db,
  settler: SaleSettler,
  pix: Pix,
  log?: WarnLog,
): Promise<'refund_seen' | null> {
  if (!pix.txid || !pix.devolucoes?.length) return null;
  const found = await findSaleByProcessorRef(db, BCB_PROCESSOR, pix.txid);
  if (!found) return null;
  const sale = { ...found, externalTransactionId: pix.txid };
  let seen = false;
  for (const dev of pix.devolucoes) {
    if (dev.status !== 'DEVOLVIDO' && dev.status !== 'NAO_REALIZADO') continue;
    // each is applied on the sale as it is now (a first DEVOLVIDO may have made it ESTORNADO)
    const now = { ...sale, status: (await findSaleByProcessorRef(db, BCB_PROCESSOR, pix.txid))!.status };
    if (await applyRequestedDevolucao(db, settler, now, pix.endToEndId, dev, log)) seen = true;
    else if (await applyUnrequestedDevolucao(db, settler, now, pix.endToEndId, dev, log)) seen = true;
  }
  return seen ? 'refund_seen' : null;
}

/**
 * Records a confirmed Pix once (by end-to-end id) and credits its sale when the amount is the charge's and
 * the sale can still become PAGO; otherwise it is kept with the reason and credits nothing. A Pix of a sale
 * already paid whose method records second payments (a boleto's: a reconciliation discrepancy) is recorded
 * there, and one of a charge closed unpaid (cancelled, refused, failed) as a discrepancy `closed_charge_paid`,
 * in the same transaction, once: a repeat of the Pix stops at its end-to-end id above.
 */
export async function creditPix(db: Db, queue: Queue, pix: Pix): Promise<PixOutcome> {
  const amount = parseReais(pix.valor) ?? -1;
  const paidAt = paidAtOf(pix);
  return db.tx(async (tx) => {
    const claimed = await tx.query(
      `INSERT INTO bcb_received_pix (e2eid, txid, amount, credited, paid_at) VALUES ($1, $2, $3, false, $4)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [
        pix.endToEndId,
        pix.txid ?? null,
        amount,
        Number.isFinite(paidAt) ? new Date(paidAt).toISOString() : null,
      ],
    );
    if (claimed.length === 0) return 'duplicate';
    const found = pix.txid ? await findSaleByProcessorRef(tx, BCB_PROCESSOR, pix.txid) : null;
    const sale = found ? await lockSale(tx, found.id) : null;
    // a boleto's Pix is due its fine and interest, or less its discount, on the day it was paid
    const due = sale
      ? await amountDue(tx, sale, Number.isFinite(paidAt) ? new Date(paidAt) : new Date())
      : null;
    let reason: string | null = null;
    if (!sale) reason = 'no sale has this txid';
    else if (
      await recordPaidAgain(tx, sale, {
        reference: pix.endToEndId,
        amount,
        detail: `Pix ${pix.endToEndId} of ${pix.valor}`,
      })
    ) {
      // a second payment of a sale already paid (a boleto's): its method recorded it; nothing is credited
      reason = `the sale is ${sale.status}`;
    } else if (due === null) reason = 'the charge can no longer be paid';
    else if (amount !== due) reason = `paid ${pix.valor}, the charge is ${due} cents`;
    else if (!isOpen(sale.status) || checkTransition(sale.status, 'PAGO') !== 'apply') {
      reason = `the sale is ${sale.status}`;
      // a charge cancelled, refused or failed was paid all the same: the payer is owed it back
      if (isClosedUnpaid(sale.status)) {
        await recordClosedChargePayment(tx, sale, {
          reference: pix.endToEndId,
          amount,
          detail: `Pix ${pix.endToEndId} of ${pix.valor}`,
        });
      }
    }
    if (!reason) {
      if (sale!.payment_method === 'BOLETO') await recordPaidAmount(tx, sale!, amount);
      await moveSale(tx, queue, sale!.id, 'PAGO');
      await completedWhenPaid(tx, sale!.id, pix.horario);
    }
    await tx.query('UPDATE bcb_received_pix SET sale_id = $2, credited = $3, reason = $4 WHERE e2eid = $1', [
      pix.endToEndId,
      sale?.id ?? null,
      reason === null,
      reason,
    ]);
    return reason === null ? 'credited' : 'not_credited';
  });
}

/** When the PSP says the Pix was paid (ms), NaN when `horario` is missing or unreadable. */
const paidAtOf = (pix: Pix) => (pix.horario === undefined ? Number.NaN : Date.parse(pix.horario));

/**
 * What a Pix of the charge `txid` must be, as creditPix judges it: the sale's amount, or a boleto's with its
 * fine and interest, or less its discount, on the day the Pix was paid; null when no sale has the txid or the
 * charge can no longer be paid.
 */
export async function pixAmountDue(db: Queryable, pix: Pix): Promise<number | null> {
  if (!pix.txid) return null;
  const sale = await findSaleByProcessorRef(db, BCB_PROCESSOR, pix.txid);
  if (!sale) return null;
  const paidAt = paidAtOf(pix);
  return amountDue(db, sale, Number.isFinite(paidAt) ? new Date(paidAt) : new Date());
}

/**
 * A sale's `completedAt` is when its Pix was paid (the PSP's `horario`), not when the gateway learned of it:
 * they differ when the webhook was late and the charge was read back at its expiry. Never later than the
 * move recorded it, never before the sale existed; an unreadable `horario` leaves the move's time.
 */
async function completedWhenPaid(tx: Queryable, saleId: number, horario: string | undefined): Promise<void> {
  const at = horario === undefined ? Number.NaN : Date.parse(horario);
  if (!Number.isFinite(at)) return;
  await setPaidAtNoLaterThan(tx, saleId, new Date(at));
}
