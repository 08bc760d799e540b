import type { SaleFeeRates } from '../accounts/index.js';
import { feesOfSale, type SaleFees } from './fees.js';
import { partiesOf } from './split.js';
import type { SaleRow } from './types.js';

/** A sale's money on another amount than its own, as the ledger will write it. */
export interface Repriced extends SaleFees {
  /** The sale's split with each party's `netCents` on that amount (null for a sale without one). */
  split: Record<string, unknown>[] | null;
}

/**
 * A sale's fee, net and reserve on another amount (a card captured for less, a boleto paid with fine or
 * discount): the fee on the terms the sale was created with; on a split sale, the fee payer's share is what the
 * net leaves after the others' fixed shares (the ledger's `partiesOf`), written back into the split the Sale
 * object carries, and the reserve, the platform's, capped at its share, as the settlement holds it.
 */
export function repriced(rates: ReadonlyMap<number, SaleFeeRates>, sale: SaleRow, amount: number): Repriced {
  const fees = feesOfSale(rates, sale, amount);
  const parties = partiesOf({ ...sale, net_amount: fees.netAmount });
  if (!parties || !Array.isArray(sale.split)) return { ...fees, split: null };
  const split = (sale.split as Record<string, unknown>[]).map((p, i) => ({
    ...p,
    netCents: parties[i]!.net,
  }));
  const platform = parties[parties.length - 1]!;
  return { ...fees, reserveAmount: Math.min(fees.reserveAmount, Math.max(0, platform.net)), split };
}
