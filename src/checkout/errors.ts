// The checkout module's refusals; its routes give each its HTTP answer (http.ts).

/** A request refused as given: a field out of range, a rule between fields broken (400). */
export class CheckoutInputError extends Error {}

/** No such payment link or checkout session, or not the asker's (404). */
export class CheckoutNotFound extends Error {}

/** The link or session exists but takes no more payments: expired, used up, turned off or paid (410). */
export class CheckoutGone extends Error {}

/** The payment method cannot be opened here now: no processor for it is configured (503). */
export class CheckoutUnavailable extends Error {}
