/** CPF and CNPJ as the gateway checks them (src/boletos/documents.ts): right length, right check digits. */

export const digitsOf = (text: string): string => text.replace(/\D/g, '');

function cpfDigit(digits: string, weight: number): number {
  let sum = 0;
  for (const d of digits) sum += Number(d) * weight--;
  const rest = (sum * 10) % 11;
  return rest === 10 ? 0 : rest;
}

export function isCpf(doc: string): boolean {
  if (!/^\d{11}$/.test(doc) || /^(\d)\1{10}$/.test(doc)) return false;
  return (
    cpfDigit(doc.slice(0, 9), 10) === Number(doc[9]) && cpfDigit(doc.slice(0, 10), 11) === Number(doc[10])
  );
}

function cnpjDigit(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

export function isCnpj(doc: string): boolean {
  if (!/^\d{14}$/.test(doc) || /^(\d)\1{13}$/.test(doc)) return false;
  return cnpjDigit(doc.slice(0, 12)) === Number(doc[12]) && cnpjDigit(doc.slice(0, 13)) === Number(doc[13]);
}

/** The digits typed so far, punctuated as a CPF (000.000.000-00) up to 11, as a CNPJ (00.000.000/0000-00) past. */
export function documentMask(text: string): string {
  const d = digitsOf(text).slice(0, 14);
  if (d.length <= 11) {
    return d
      .replace(/^(\d{3})(\d)/, '$1.$2')
      .replace(/^(\d{3})\.(\d{3})(\d)/, '$1.$2.$3')
      .replace(/\.(\d{3})(\d)/, '.$1-$2');
  }
  return d
    .replace(/^(\d{2})(\d)/, '$1.$2')
    .replace(/^(\d{2})\.(\d{3})(\d)/, '$1.$2.$3')
    .replace(/\.(\d{3})(\d)/, '.$1/$2')
    .replace(/(\d{4})(\d)/, '$1-$2');
}
