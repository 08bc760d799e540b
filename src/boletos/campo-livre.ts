// Campo livre of Banco Bradesco (237), the bank this gateway issues under (docs/decisions.md, "Boleto"):
// agência (4) + carteira (2) + nosso número (11, without its check digit) + conta (7, without its check
// digit) + 0.

export interface Beneficiary {
  bank: string;
  agency: string;
  account: string;
  wallet: string;
  name: string;
  document: string;
}

export const SUPPORTED_BANKS = ['237'] as const;
export const NOSSO_NUMERO_DIGITS = 11;

export function campoLivre(b: Beneficiary, nossoNumero: string): string {
  if (!/^\d{11}$/.test(nossoNumero)) throw new RangeError('nosso número must be 11 digits');
  return `${b.agency.padStart(4, '0')}${b.wallet.padStart(2, '0')}${nossoNumero}${b.account.padStart(7, '0')}0`;
}

/** The nosso número read back from a campo livre. */
export const nossoNumeroOf = (free: string): string => free.slice(6, 17);

/** Bradesco's nosso número check digit: módulo 11 weights 2..7 over carteira + nosso número; 1 → P, 0 → 0. */
export function nossoNumeroCheckDigit(wallet: string, nossoNumero: string): string {
  const digits = wallet.padStart(2, '0') + nossoNumero;
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const rest = sum % 11;
  return rest === 0 ? '0' : rest === 1 ? 'P' : String(11 - rest);
}
