/** The card's rules as the gateway checks them (src/cards): brand by BIN, lengths, the check digit, the expiry. */
import { BRAND_LENGTHS, BRAND_NAMES, brandOf, type CardBrand } from '../../src/cards/brands';
import { luhnValid } from '../../src/cards/card-checks';
import { digitsOf } from './document';

export { BRAND_NAMES, brandOf, type CardBrand };

/** What the payer typed of their card; it leaves the page only to this page's own tokenizing route. */
export interface CardFields {
  number: string;
  holder: string;
  expiry: string;
  cvv: string;
}
export type CardFieldName = keyof CardFields;

export const EMPTY_CARD: CardFields = { number: '', holder: '', expiry: '', cvv: '' };

/** A number's digits as typed, in groups of four (American Express: 4-6-5), up to 19 digits. */
export function cardNumberMask(text: string): string {
  const d = digitsOf(text).slice(0, 19);
  if (brandOf(d.padEnd(6, '0')) === 'amex' && d.startsWith('3')) {
    return [d.slice(0, 4), d.slice(4, 10), d.slice(10, 15)].filter(Boolean).join(' ');
  }
  return d.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** MM/AA as typed. */
export const expiryMask = (text: string): string =>
  digitsOf(text)
    .slice(0, 4)
    .replace(/^(\d{2})(\d)/, '$1/$2');

/** The expiry typed as MM/AA: its month and four-digit year, or null. */
export function expiryOf(text: string): { month: number; year: number } | null {
  const m = /^(\d{2})\/(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const month = Number(m[1]);
  return month >= 1 && month <= 12 ? { month, year: 2000 + Number(m[2]) } : null;
}

/** A card field's problem in Portuguese, or null when it is right. */
export function cardProblemOf(field: CardFieldName, card: CardFields, now = new Date()): string | null {
  const digits = digitsOf(card.number);
  const brand = brandOf(digits);
  switch (field) {
    case 'number':
      if (digits.length === 0) return 'Informe o número do cartão.';
      if (digits.length >= 6 && !brand) {
        return 'Não aceitamos esta bandeira. Use Visa, Mastercard, American Express, Elo ou Hipercard.';
      }
      if (!brand || !BRAND_LENGTHS[brand].includes(digits.length) || !luhnValid(digits)) {
        return 'Número do cartão inválido: confira os dígitos.';
      }
      return null;
    case 'holder':
      return card.holder.trim() ? null : 'Informe o nome como está impresso no cartão.';
    case 'expiry': {
      const at = expiryOf(card.expiry);
      if (!at) return 'Informe a validade como MM/AA, por exemplo 08/29.';
      const year = now.getUTCFullYear();
      if (at.year < year || (at.year === year && at.month < now.getUTCMonth() + 1)) {
        return 'Este cartão está vencido.';
      }
      return at.year > year + 20 ? 'Confira a validade do cartão.' : null;
    }
    case 'cvv': {
      const length = brand === 'amex' ? 4 : 3;
      return new RegExp(`^\\d{${length}}$`).test(card.cvv)
        ? null
        : `O código de segurança tem ${length} dígitos (no verso do cartão${length === 4 ? ', ou na frente' : ''}).`;
    }
  }
}

/** Whether a card field's problem shows yet: once it could be complete, and always after the payer leaves it. */
export function showsCardProblem(field: CardFieldName, card: CardFields, left: boolean): boolean {
  if (left) return true;
  if (field === 'number') return digitsOf(card.number).length >= 6 && !brandOf(digitsOf(card.number));
  if (field === 'expiry') return card.expiry.length === 5;
  return false;
}

/**
 * Why the card was refused, in Portuguese, from the acquirer's return code (Cielo's codes; the sandbox uses the
 * same): what the payer can do next is another card, or a word with their bank.
 */
const REFUSALS: Record<string, string> = {
  '05': 'O banco do cartão não autorizou o pagamento. Fale com seu banco ou use outro cartão.',
  '51': 'O cartão não tem limite para este valor. Use outro cartão.',
  '54': 'Este cartão está vencido. Use outro cartão.',
  '57': 'Este cartão está vencido. Use outro cartão.',
  '14': 'O número do cartão não foi aceito. Confira os dígitos ou use outro cartão.',
  '70': 'O banco recusou este cartão por um problema com ele. Fale com seu banco ou use outro cartão.',
  '77': 'Este cartão foi cancelado. Use outro cartão.',
  '78': 'Este cartão está bloqueado. Fale com seu banco para desbloqueá-lo ou use outro cartão.',
};

export const refusalMessage = (code: string | null): string =>
  (code && REFUSALS[code]) ?? 'O pagamento foi recusado. Confira os dados do cartão ou use outro cartão.';

/**
 * Installments as the select shows them, short enough for a phone's select closed: "3x de R$ 33,33 sem juros".
 * A remainder of the division, on the first installment, is said beside the select (`firstInstallmentNote`),
 * where it is never cut off. The payer pays the amount: no interest.
 */
export function installmentLabel(
  option: {
    installments: number;
    installmentCents: number;
    firstInstallmentCents: number;
    totalCents: number;
  },
  money: (cents: number) => string,
): string {
  if (option.installments === 1) return `À vista, ${money(option.totalCents)}`;
  return `${option.installments}x de ${money(option.installmentCents)} sem juros`;
}

/** The first installment's own amount when the division leaves a remainder on it: "A 1ª parcela é de R$ 33,34." */
export function firstInstallmentNote(
  option: { installments: number; installmentCents: number; firstInstallmentCents: number },
  money: (cents: number) => string,
): string | null {
  return option.installments > 1 && option.firstInstallmentCents !== option.installmentCents
    ? `A 1ª parcela é de ${money(option.firstInstallmentCents)}.`
    : null;
}
