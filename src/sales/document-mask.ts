/** Digits of a customer document (CPF or CNPJ) shown in lists and exports: the last ones only. */
const SHOWN = 4;

/** `529.982.247-25` → `***.***.*47-25`, `52998224725` → `*******4725`: the punctuation stays, digits hide. */
export function maskDocument(document: string | null | undefined): string | null {
  if (document === null || document === undefined) return null;
  let digitsLeft = (document.match(/\d/g) ?? []).length;
  return document.replace(/\d/g, (d) => (digitsLeft-- > SHOWN ? '*' : d));
}

/** A sale's public JSON with its customer's document masked (key order kept). */
export function withMaskedDocument(saleJson: string): string {
  const sale = JSON.parse(saleJson) as { customer?: { document?: string | null } | null };
  if (!sale.customer?.document) return saleJson;
  sale.customer.document = maskDocument(sale.customer.document);
  return JSON.stringify(sale);
}
