import type { MandateCharges, RecurrenceRow } from '../pix/index.js';
import type { Queryable } from '../platform/db/db.js';
import { mandatesInUse } from './data.js';

/**
 * The account's Pix Automático mandates of this payer's CPF or CNPJ that could charge `amount` here and pay
 * for no live subscription yet (a mandate pays for one at a time), newest first.
 */
export async function freeMandatesOf(
  q: Queryable,
  mandates: MandateCharges,
  accountId: number,
  document: string,
  amount: number,
): Promise<RecurrenceRow[]> {
  const found = await mandates.ofPayer(q, accountId, document, amount);
  const inUse = await mandatesInUse(
    q,
    found.map((r) => r.id),
  );
  return found.filter((r) => !inUse.has(r.id));
}
