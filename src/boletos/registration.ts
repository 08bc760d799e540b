import type { Queryable } from '../platform/db/db.js';
import { saleStatuses } from '../sales/index.js';
import { type BoletoRow, boletosIssuedOn, boletosRegisteredBefore, markSentToBank } from './data.js';
import { termsOf } from './paid-amount.js';
import { lastPayableDay } from './terms.js';

/** What a São Paulo day's remessa tells the bank. */
export interface RemessaContent {
  /** The day's boletos to register (movement 01). */
  register: BoletoRow[];
  /** Boletos an earlier file registered that no payer may pay at the bank any more (movement 02, baixa). */
  takeDown: BoletoRow[];
  /** The day's boletos this file does not register: cancelled, or paid, before it was written. */
  leftOut: number;
}

/**
 * The remessa of a São Paulo day: the boletos issued that day still awaiting payment when the file is
 * written (one cancelled by its merchant, or paid already by its Pix, is left out, so that the bank never asks a
 * payer for a boleto the gateway would not credit), and a baixa of each boleto an earlier file registered that
 * has since stopped awaiting payment (cancelled, or paid by its Pix) while the bank would still take it. The
 * same day written again registers what awaits payment then (a file sent twice never registers again a
 * boleto taken down since), and asks the same baixas.
 */
export async function remessaOf(db: Queryable, beneficiary: string, day: string): Promise<RemessaContent> {
  const [issued, earlier] = await Promise.all([
    boletosIssuedOn(db, beneficiary, day),
    boletosRegisteredBefore(db, beneficiary, day),
  ]);
  const statuses = await saleStatuses(
    db,
    [...issued, ...earlier].map((b) => Number(b.sale_id)),
  );
  const awaiting = (b: BoletoRow) => statuses.get(Number(b.sale_id))?.status === 'PENDENTE';
  // only what awaits payment as the file is written, a day written again too: one a first file of the day
  // registered and that stopped awaiting since is taken down by the next day's file, never registered again
  const register = issued.filter(awaiting);
  // one past its last payable day is taken down by the bank itself (the baixa after daysAfterDue of its entry)
  const takeDown = earlier.filter((b) => !awaiting(b) && lastPayableDay(termsOf(b)) >= day);
  return { register, takeDown, leftOut: issued.length - register.length };
}

/**
 * Records a day's remessa as sent, in one transaction around `write` (the file): its boletos registered that
 * day, its baixas asked that day. A file that cannot be written records nothing.
 */
export async function recordRemessa(
  db: { tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  day: string,
  content: RemessaContent,
  write: () => void,
): Promise<void> {
  await db.tx(async (tx) => {
    await markSentToBank(
      tx,
      day,
      content.register.map((b) => Number(b.sale_id)),
      content.takeDown.map((b) => Number(b.sale_id)),
    );
    write();
  });
}
