import { AppError, notFound, validation } from '../platform/errors/app-error.js';
import { isUuid } from '../platform/ids/public-ids.js';
import {
  BoletoUnavailable,
  CardsUnavailable,
  CheckoutGone,
  CheckoutInputError,
  CheckoutNotFound,
  CheckoutRefused,
} from './errors.js';

/** The checkout module's refusals as the routes answer them: 400, 403, 404, 410 in the route's shape. */
export async function mapCheckoutErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof CheckoutInputError) throw validation(err.message);
    if (err instanceof CheckoutNotFound) throw notFound(err.message);
    if (err instanceof CheckoutGone) throw new AppError('GONE', err.message);
    if (err instanceof CheckoutRefused) throw new AppError('FORBIDDEN', err.message);
    if (err instanceof BoletoUnavailable || err instanceof CardsUnavailable) {
      throw new AppError('PROCESSOR_UNAVAILABLE', err.message);
    }
    throw err;
  }
}

/** A link's or session's id from the path: anything but a uuid names nothing (404). */
export function uuidPath(raw: string, what: string): string {
  if (!isUuid(raw)) throw notFound(`${what} not found`);
  return raw.toLowerCase();
}
