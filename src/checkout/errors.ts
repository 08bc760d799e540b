// The checkout module's refusals; its routes give each its HTTP answer (http.ts).

/** A request refused as given: a field out of range, a rule between fields broken (400). */
export class CheckoutInputError extends Error {}

/** No such payment link or checkout session, or not the asker's (404). */
export class CheckoutNotFound extends Error {}

/** Why a link or session takes no more payments: the hosted page says which, in Portuguese. */
/** unavailable: the shop's own setup refuses it for now (its split names a recipient it deactivated). */
export type GoneReason = 'expired' | 'used_up' | 'turned_off' | 'paid' | 'unavailable';

/** The link or session exists but takes no more payments: expired, used up, turned off or paid (410). */
export class CheckoutGone extends Error {
  constructor(
    message: string,
    readonly reason: GoneReason,
  ) {
    super(message);
  }
}

/** No PSP issues boletos on this gateway (503 PROCESSOR_UNAVAILABLE). */
export class BoletoUnavailable extends Error {}

/** No card acquirer is usable on this gateway (503 PROCESSOR_UNAVAILABLE). */
export class CardsUnavailable extends Error {}

/** A risk rule blocked the payment: the refused sale is recorded for the shop; the payer is told no. */
export class CheckoutRefused extends Error {}
