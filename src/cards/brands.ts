export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'elo', 'hipercard'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

/** A brand as a person reads it (an e-mail's "cartão Visa final 1234"). */
export const BRAND_NAMES: Record<CardBrand, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  elo: 'Elo',
  hipercard: 'Hipercard',
};

/** Inclusive ranges of the first six digits (BIN), from the brands' public lists. */
type BinRange = readonly [number, number];

const ELO_BINS: readonly BinRange[] = [
  [401178, 401179],
  [431274, 431274],
  [438935, 438935],
  [451416, 451416],
  [457393, 457393],
  [457631, 457632],
  [504175, 504175],
  [506699, 506778],
  [509000, 509999],
  [627780, 627780],
  [636297, 636297],
  [636368, 636368],
  [650031, 650033],
  [650035, 650051],
  [650405, 650439],
  [650485, 650538],
  [650541, 650598],
  [650700, 650718],
  [650720, 650727],
  [650901, 650978],
  [651652, 651679],
  [655000, 655019],
  [655021, 655058],
];

const inRanges = (bin: number, ranges: readonly BinRange[]) =>
  ranges.some(([low, high]) => bin >= low && bin <= high);

/** The lengths each brand issues. */
export const BRAND_LENGTHS: Record<CardBrand, readonly number[]> = {
  visa: [13, 16, 19],
  mastercard: [16],
  amex: [15],
  elo: [16],
  hipercard: [13, 16, 19],
};

/**
 * The brand of a card number (digits only), or null. Elo and Hipercard are looked at first: some Elo BINs start
 * with 4 or 5 and would otherwise read as Visa or Mastercard.
 */
export function brandOf(digits: string): CardBrand | null {
  if (digits.length < 6) return null;
  const bin = Number(digits.slice(0, 6));
  if (inRanges(bin, ELO_BINS)) return 'elo';
  if (digits.startsWith('606282') || digits.startsWith('3841')) return 'hipercard';
  if (digits.startsWith('34') || digits.startsWith('37')) return 'amex';
  const four = Number(digits.slice(0, 4));
  const two = Number(digits.slice(0, 2));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (digits.startsWith('4')) return 'visa';
  return null;
}
