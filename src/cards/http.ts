import { AppError, validation } from '../platform/errors/app-error.js';
import { type PaymentMethodPort, unavailable } from '../sales/index.js';
import type { CardRefunds } from './card-refunds.js';
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

/**
 * Card behind the payment-method port: the sale stored, then the acquirer's authorization (and capture, unless
 * asked not to); cancelled by voiding an authorization not captured; refunded at the acquirer (void or refund).
 * Its statuses kept up: an authorization whose answer was lost is asked about, one not captured in 7 days voided.
 */
export function cardMethod(deps: {
  sales: CardSales;
  /** The card sales the gateway may make (none through the sandbox acquirer unless SANDBOX is on). */
  charger: CardSales | null;
  refunds: CardRefunds;
}): PaymentMethodPort {
  const { sales, charger } = deps;
  return {
    methods: ['CREDIT_CARD', 'DEBIT_CARD'],
    refunders: [deps.refunds],
    open: async (accountId, request, key, log) => {
      if (!charger) throw unavailable(request.paymentMethod);
      return mapCardErrors(() => charger.open(accountId, request as unknown as CardSaleInput, key, log));
    },
    check: async (accountId, request) => {
      if (!charger) throw unavailable(request.paymentMethod);
      await mapCardErrors(() => charger.checkCharge(accountId, request as unknown as CardSaleInput));
    },
    cancel: (accountId, id) => mapCardErrors(() => sales.void(accountId, id)),
    refreshStatuses: async (log) => (await sales.resolveUnknown(log)) + (await sales.voidExpired(log)),
  };
}
