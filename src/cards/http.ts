import { AppError, validation } from '../platform/errors/app-error.js';
import type { CardSalesPort } from '../sales/index.js';
import type { CardSaleInput, CardSales } from './card-sales.js';
import { AcquirerRefused, AcquirerUnavailable, CardInputError } from './errors.js';

/** The cards module's errors in the routes' shapes: a refused card 400, the acquirer's refusal 502, its silence 503. */
export async function mapCardErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof CardInputError) throw validation(err.message);
    if (err instanceof AcquirerRefused) throw new AppError('PROCESSOR_ERROR', err.message);
    if (err instanceof AcquirerUnavailable) {
      throw new AppError('PROCESSOR_UNAVAILABLE', 'The card acquirer is unavailable: retry shortly');
    }
    throw err;
  }
}

/** The sales module's port for card sales (POST /api/transactions), its refusals in the route's shapes. */
export function cardSalesPort(sales: CardSales): CardSalesPort {
  return {
    open: (accountId, body, key, log) =>
      mapCardErrors(() => sales.open(accountId, body as CardSaleInput, key, log)),
    void: (accountId, id) => mapCardErrors(() => sales.void(accountId, id)),
  };
}
