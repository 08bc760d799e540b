import type { Queryable } from '../platform/db/db.js';
import { saleStatuses } from '../sales/index.js';
import { type BoletoRow, boletosIssuedOn } from './data.js';

/**
 * The boletos of a São Paulo day the bank is to register (the remessa): those still awaiting payment when the
 * file is written. One cancelled by its merchant, or paid already (by its Pix), is left out, so that the bank
 * never asks a payer for a boleto the gateway would not credit; `leftOut` counts them.
 */
export async function boletosToRegister(
  db: Queryable,
  beneficiary: string,
  day: string,
): Promise<{ register: BoletoRow[]; leftOut: number }> {
  const issued = await boletosIssuedOn(db, beneficiary, day);
  const statuses = await saleStatuses(
    db,
    issued.map((b) => Number(b.sale_id)),
  );
  const register = issued.filter((b) => statuses.get(Number(b.sale_id))?.status === 'PENDENTE');
  return { register, leftOut: issued.length - register.length };
}
