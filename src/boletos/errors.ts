/** A boleto request the contract refuses (the routes answer 400 in their shape). */
export class BoletoInputError extends Error {}

/** The boleto asked for does not exist or is not the caller's (the routes answer 404). */
export class BoletoNotFound extends Error {}
