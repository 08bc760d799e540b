// CPF and CNPJ check digits (Receita Federal's módulo 11): the one check of every route that takes a document,
// and of the payer's page (checkout-page imports it).

function cpfDigit(digits: string, firstWeight: number): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * (firstWeight - i);
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

/** A CPF or a CNPJ whose check digits are right (digits only). */
export const isCpfOrCnpj = (doc: string): boolean => isCpf(doc) || isCnpj(doc);
