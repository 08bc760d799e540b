/** Digits of a document (CPF or CNPJ) shown where it is masked (lists, exports, e-mails): the last ones only. */
const SHOWN = 4;

/** `529.982.247-25` → `***.***.*47-25`, `52998224725` → `*******4725`: the punctuation stays, digits hide. */
export function maskDocument(document: string | null | undefined): string | null {
  if (document === null || document === undefined) return null;
  let digitsLeft = (document.match(/\d/g) ?? []).length;
  return document.replace(/\d/g, (d) => (digitsLeft-- > SHOWN ? '*' : d));
}
