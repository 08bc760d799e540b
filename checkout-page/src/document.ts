/** CPF and CNPJ as the gateway checks them: the server's own check (right length, right check digits). */
export { isCnpj, isCpf } from '../../src/platform/text/documents';

export const digitsOf = (text: string): string => text.replace(/\D/g, '');

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
