import { MAX_BOLETO_CENTS } from '../payment-standards/index.js';
import { CheckoutInputError } from './errors.js';
import type { CheckoutMethod } from './links.data.js';

/**
 * The methods this gateway can take now, from what app.ts wired: PIX with a PIX processor, BOLETO with a boleto
 * issuer, CREDIT_CARD with a usable card acquirer (the sandbox one only with SANDBOX on).
 */
export type TakenMethods = ReadonlySet<CheckoutMethod>;

/** A link or session may not offer what the gateway cannot take: refused at creation (400). */
export function refuseUntaken(methods: readonly CheckoutMethod[], taken: TakenMethods): void {
  const untaken = methods.filter((m) => !taken.has(m));
  if (untaken.length === 0) return;
  const can = [...taken];
  throw new CheckoutInputError(
    `methods: this gateway cannot take ${untaken.join(', ')} (it takes ${can.length > 0 ? can.join(', ') : 'none'})`,
  );
}

/**
 * What a payer's page offers of a link's or session's methods: those the gateway can take today (a link made
 * when an acquirer was configured never shows a card form that cannot be paid once it is gone).
 */
export const offered = (methods: readonly CheckoutMethod[], taken: TakenMethods): CheckoutMethod[] =>
  methods.filter((m) => taken.has(m));

/**
 * A fixed amount a method it offers cannot carry (a boleto's barcode holds at most MAX_BOLETO_CENTS): refused at
 * creation (400), not met by the payer as a refusal of their data when they pick that method.
 */
export function refuseBeyondMethods(amountCents: number, methods: readonly CheckoutMethod[]): void {
  if (methods.includes('BOLETO') && amountCents > MAX_BOLETO_CENTS) {
    throw new CheckoutInputError(
      `amountCents ${amountCents} is more than a boleto can carry (${MAX_BOLETO_CENTS} cents): lower it or leave BOLETO out of methods`,
    );
  }
}
