import type { FastifyBaseLogger } from 'fastify';
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

/** The fee refusal (sales' feesOnTerms): an amount the shop's fee plan, changed since the link was made, exceeds. */
const FEE_NOT_COVERED = /^amount \d+ does not cover this account's sale fee/;

/**
 * The payer's door (a link's or a session's payment): as mapCheckoutErrors, but a refusal of the shop's own setup
 * (its split: the fee payer's share too small for this method's fee; or its fee plan, changed since, above the
 * amount) is 403 told without the shop's data,
 * recipients' ids and names being the platform's, not the payer's; the reason is logged for the shop's operators.
 * (A recipient deactivated since the page was made closes the page itself: 410, pay.ts.)
 */
export async function mapPayerErrors<T>(work: () => Promise<T>, log: FastifyBaseLogger): Promise<T> {
  try {
    return await mapCheckoutErrors(work);
  } catch (err) {
    if (
      err instanceof AppError &&
      err.code === 'VALIDATION_ERROR' &&
      (err.message.startsWith('split:') || FEE_NOT_COVERED.test(err.message))
    ) {
      // not the payer's data: the page tells them the shop refused this payment, to try another way or ask it
      log.warn({ reason: err.message }, 'a payer’s payment refused by the shop’s split or fees');
      throw new AppError('FORBIDDEN', 'This payment cannot be taken now: the shop must review its settings');
    }
    throw err;
  }
}

/** A link's or session's id from the path: anything but a uuid names nothing (404). */
export function uuidPath(raw: string, what: string): string {
  if (!isUuid(raw)) throw notFound(`${what} not found`);
  return raw.toLowerCase();
}
