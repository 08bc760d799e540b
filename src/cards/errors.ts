/** A card the checks refuse (the route answers 400). Its message never holds the number or the CVV. */
export class CardInputError extends Error {}

/** The acquirer answered, but not with a token (the route answers 502). */
export class AcquirerRefused extends Error {}

/** The acquirer could not be reached, or did not answer in time (the route answers 503). */
export class AcquirerUnavailable extends Error {}
