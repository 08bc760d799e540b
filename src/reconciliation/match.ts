import type { WarnLog } from '../pix/index.js';
import {
  type ChargeRecord,
  creditPix,
  type Pix,
  pixAmountDue,
  recordsOfPage,
  settleRefunds,
} from '../pix/index.js';
import type { Db } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import { formatReais, parseReais } from '../platform/money/money.js';
import { type SaleSettler, saleStatus } from '../sales/index.js';
import { type Discrepancy, owedBackAmong, resolveReturned } from './discrepancies.data.js';
import type { Counts } from './runs.data.js';

export interface MatchDeps {
  db: Db;
  queue: Queue;
  settler: SaleSettler;
  log?: WarnLog;
}

const REFUNDABLE = new Set(['PAGO', 'MED', 'CHARGEBACK']);

/**
 * One page of the PSP's received Pix against the gateway's records. A Pix matching a charge (txid and amount)
 * that the gateway never credited is credited now through the webhook's own path (`creditPix`: recorded once
 * by end-to-end id, so a late webhook or another run finds it and changes nothing); DEVOLVIDO devoluções of a
 * sale not yet ESTORNADO are applied through the webhook's `settleRefunds`. A Pix naming no charge, or paying
 * another amount (for a boleto, than it asked on the day it was paid: one more read per boleto Pix), is a
 * discrepancy and credits nothing (a boleto's second Pix, already recorded as `duplicate_payment`, is no other
 * one). Three reads cover a page of PIX charges where nothing is missing.
 */
export async function matchPage(
  deps: MatchDeps,
  page: Pix[],
): Promise<{ counts: Counts; found: Discrepancy[] }> {
  const e2eids = page.map((p) => p.endToEndId);
  const txids = page.flatMap((p) => (typeof p.txid === 'string' ? [p.txid] : []));
  const [records, owedBack] = await Promise.all([
    recordsOfPage(deps.db, e2eids, txids),
    owedBackAmong(deps.db, e2eids),
  ]);
  const counts: Counts = { received: page.length, matched: 0, creditedNow: 0, refundedNow: 0 };
  const found: Discrepancy[] = [];
  for (const pix of page) {
    const amount = parseReais(pix.valor) ?? -1;
    const record = records.pix.get(pix.endToEndId);
    const charge = pix.txid ? records.charges.get(pix.txid) : undefined;
    const base = { e2eid: pix.endToEndId, txid: pix.txid ?? null, amount };
    if (owedBack.has(pix.endToEndId)) {
      // a payment the payer is owed back, recorded when it arrived (a boleto's second one, a closed charge's):
      // closed once the PSP lists it returned in full
      counts.matched++;
      if (returnedInFull(pix, amount)) await resolveReturned(deps.db, pix.endToEndId);
      continue;
    } else if (record?.credited) {
      counts.matched++;
    } else if (!charge) {
      found.push({ ...base, kind: 'unknown_charge', detail: unknownDetail(pix) });
      continue;
    } else {
      const due = await amountDueOf(deps, pix, charge);
      if (amount !== due) {
        const detail =
          due === null
            ? `paid ${pix.valor} after the charge's last day to be paid`
            : `paid ${pix.valor}, the charge is ${formatReais(due)}`;
        found.push({ ...base, kind: 'amount_mismatch', detail });
        continue;
      }
      counts.matched++;
      if (!record && (await creditPix(deps.db, deps.queue, pix)) === 'credited') counts.creditedNow++;
    }
    if (charge && (await refundedNow(deps, pix, charge))) counts.refundedNow++;
  }
  return { counts, found };
}

/**
 * What the Pix had to pay: the charge's amount, or for a boleto what creditPix asks on the day it was paid (its
 * fine and interest, or less its discount; null past its last payable day).
 */
async function amountDueOf(deps: MatchDeps, pix: Pix, charge: ChargeRecord): Promise<number | null> {
  return charge.paymentMethod === 'BOLETO' ? pixAmountDue(deps.db, pix) : charge.amount;
}

/** Whether the Pix's DEVOLVIDO devoluções return all of it. */
function returnedInFull(pix: Pix, amount: number): boolean {
  const returned = (pix.devolucoes ?? [])
    .filter((d) => d.status === 'DEVOLVIDO')
    .reduce((sum, d) => sum + (parseReais(d.valor ?? '') ?? 0), 0);
  return amount > 0 && returned >= amount;
}

function unknownDetail(pix: Pix): string {
  return pix.txid ? `no charge of the gateway has txid ${pix.txid}` : 'a Pix to the key without a txid';
}

/** The Pix's DEVOLVIDO devoluções applied; true when that moved its sale to ESTORNADO. */
async function refundedNow(deps: MatchDeps, pix: Pix, charge: ChargeRecord): Promise<boolean> {
  if (!pix.devolucoes?.some((d) => d.status === 'DEVOLVIDO')) return false;
  // the status read with the page may be older than a credit made just now
  const before = (await saleStatus(deps.db, charge.id)) ?? charge.status;
  if (!REFUNDABLE.has(before)) return false;
  await settleRefunds(deps.db, deps.settler, pix, deps.log);
  return (await saleStatus(deps.db, charge.id)) === 'ESTORNADO';
}
