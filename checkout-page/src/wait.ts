/**
 * A 429 in words, with the wait its Retry-After gives: a minute for the page's own limit, up to an hour for a
 * card tried too often (then another card or another way to pay is the payer's way on).
 */
export function tooManyText(retryAfter: string | null): string {
  const seconds = Number(retryAfter);
  if (!retryAfter || !Number.isFinite(seconds) || seconds <= 60) {
    return 'Muitas tentativas seguidas. Espere um minuto e tente de novo.';
  }
  const minutes = Math.ceil(seconds / 60);
  return `Muitas tentativas seguidas. Espere ${minutes} minutos e tente de novo, ou use outro cartão ou outra forma de pagamento.`;
}
