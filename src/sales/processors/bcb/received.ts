import type { Db } from '../../../platform/db.js';
import { parseReais } from '../../../platform/money.js';
import { type PixApiClient, PspError } from '../../../platform/pix-api-client.js';
import type { Queue } from '../../../platform/queue.js';
import { findSaleByProcessorRef } from '../../charges.data.js';
import { lockSale } from '../../data.js';
import type { SaleSettler } from '../../settler.js';
import { checkTransition, isOpen } from '../../status-machine.js';
import { moveSale } from '../../transition.js';
import { BCB_PROCESSOR } from './adapter.js';
import { applyRequestedDevolucao, applyUnrequestedDevolucao, type WarnLog } from './devolucoes.js';

/** The standard's Pix object, as far as the gateway reads it. */
export interface Pix {
  endToEndId: string;
  txid?: string;
  valor: string;
  devolucoes?: { id: string; valor?: string; status: string }[];
}

export type PixOutcome = 'credited' | 'duplicate' | 'not_confirmed' | 'not_credited' | 'refund_seen';

/**
 * Handles the Pix a webhook announced. The webhook carries no signature, so nothing in it is believed: each
 * Pix is read back from the PSP (GET /pix/{e2eid}) and only what the PSP answers moves money.
 */
export async function handleNotifiedPix(
  db: Db,
  queue: Queue,
  settler: SaleSettler,
  client: PixApiClient,
  notified: { endToEndId: string }[],
  log?: WarnLog,
): Promise<PixOutcome[]> {
  const outcomes: PixOutcome[] = [];
  for (const item of notified) {
    const res = await client.call<Pix>('GET', `/pix/${encodeURIComponent(item.endToEndId)}`);
    if (res.status === 404) {
      outcomes.push('not_confirmed');
      continue;
    }
    if (res.status !== 200) throw new PspError(`GET /pix answered ${res.status}`, res.status);
    // credited first: a Pix refunded at the PSP before its webhook reached us is credited, then refunded
    const credit = await creditPix(db, queue, res.body);
    outcomes.push((await settleRefunds(db, settler, res.body, log)) ?? credit);
  }
  return outcomes;
}

/**
 * Devoluções of a read-back Pix that reached a final status. One the gateway requested takes its final status,
 * and DEVOLVIDO moves its sale to ESTORNADO (once: a repeat changes nothing); NAO_REALIZADO leaves the sale
 * PAGO and refundable again. One it did not request is recorded; DEVOLVIDO of the full amount → ESTORNADO too.
 */
export async function settleRefunds(
  db: Db,
  settler: SaleSettler,
  pix: Pix,
  log?: WarnLog,
): Promise<PixOutcome | null> {
  if (!pix.txid || !pix.devolucoes?.length) return null;
  const found = await findSaleByProcessorRef(db, BCB_PROCESSOR, pix.txid);
  if (!found) return null;
  const sale = { ...found, externalTransactionId: pix.txid };
  let seen = false;
  for (const dev of pix.devolucoes) {
    if (dev.status !== 'DEVOLVIDO' && dev.status !== 'NAO_REALIZADO') continue;
    // each is applied on the sale as it is now (a first DEVOLVIDO may have made it ESTORNADO)
    const now = { ...sale, status: (await findSaleByProcessorRef(db, BCB_PROCESSOR, pix.txid))!.status };
    if (await applyRequestedDevolucao(db, settler, now, pix.endToEndId, dev)) seen = true;
    else if (await applyUnrequestedDevolucao(db, settler, now, pix.endToEndId, dev, log)) seen = true;
  }
  return seen ? 'refund_seen' : null;
}

/**
 * Records a confirmed Pix once (by end-to-end id) and credits its sale when the amount is the charge's and
 * the sale can still become PAGO; otherwise it is kept with the reason and credits nothing.
 */
export async function creditPix(db: Db, queue: Queue, pix: Pix): Promise<PixOutcome> {
  const amount = parseReais(pix.valor) ?? -1;
  return db.tx(async (tx) => {
    const claimed = await tx.query(
      `INSERT INTO bcb_received_pix (e2eid, txid, amount, credited) VALUES ($1, $2, $3, false)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [pix.endToEndId, pix.txid ?? null, amount],
    );
    if (claimed.length === 0) return 'duplicate';
    const found = pix.txid ? await findSaleByProcessorRef(tx, BCB_PROCESSOR, pix.txid) : null;
    const sale = found ? await lockSale(tx, found.id) : null;
    let reason: string | null = null;
    if (!sale) reason = 'no sale has this txid';
    else if (amount !== sale.amount) reason = `paid ${pix.valor}, the charge is ${sale.amount} cents`;
    else if (!isOpen(sale.status) || checkTransition(sale.status, 'PAGO') !== 'apply') {
      reason = `the sale is ${sale.status}`;
    }
    if (!reason) await moveSale(tx, queue, sale!.id, 'PAGO');
    await tx.query('UPDATE bcb_received_pix SET sale_id = $2, credited = $3, reason = $4 WHERE e2eid = $1', [
      pix.endToEndId,
      sale?.id ?? null,
      reason === null,
      reason,
    ]);
    return reason === null ? 'credited' : 'not_credited';
  });
}
