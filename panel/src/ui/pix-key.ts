/**
 * PIX keys as people type them. The API takes a CPF or CNPJ with or without its punctuation and a phone only as
 * +55 and its digits; a person types "(11) 98765-4321", "11 98765 4321" or "+55 11 98765-4321". The form shows the
 * key as its type is usually written while it is typed, and sends what the API takes.
 */

const digits = (typed: string) => typed.replace(/\D/g, '');

/**
 * A phone's digits as +55 and its 10 or 11 digits: typed with its country code (55 and 10 or 11 digits) or as a
 * Brazilian number without it; null when the digits are neither.
 */
function phoneForApi(d: string): string | null {
  if ((d.length === 12 || d.length === 13) && d.startsWith('55')) return `+${d}`;
  if (d.length === 10 || d.length === 11) return `+55${d}`;
  return null;
}

/** The key as the API takes it: a phone as +55 and its 10 or 11 digits; any other type as typed, trimmed. */
export function pixKeyForApi(type: string, typed: string): string {
  const key = typed.trim();
  if (type !== 'PHONE') return key;
  return phoneForApi(digits(key)) ?? key; // the API says what is wrong with it
}

/** Digits laid into a pattern (# a digit), as far as they go. */
function lay(d: string, pattern: string): string {
  let out = '';
  let i = 0;
  for (const c of pattern) {
    if (i >= d.length) break;
    if (c === '#') out += d[i++];
    else out += c;
  }
  return out;
}

/**
 * The key being typed, written as its type usually is: CPF 000.000.000-00, CNPJ 00.000.000/0000-00, a phone
 * (11) 98765-4321 (with +55 in front when typed with it). E-mails and random keys are left as typed.
 */
export function maskPixKey(type: string, typed: string): string {
  const d = digits(typed);
  switch (type) {
    case 'CPF':
      return lay(d.slice(0, 11), '###.###.###-##');
    case 'CNPJ':
      return lay(d.slice(0, 14), '##.###.###/####-##');
    case 'PHONE': {
      // a deleted character must stay deleted: the mask waits until there is something to lay out
      if (d === '') return typed.startsWith('+') ? '+' : '';
      const country = typed.trim().startsWith('+') || (d.startsWith('55') && d.length > 11);
      const local = country ? d.slice(2, 13) : d.slice(0, 11);
      const pattern = local.length > 10 ? '(##) #####-####' : '(##) ####-####';
      return `${country ? '+55 ' : ''}${lay(local, pattern)}`;
    }
    default:
      return typed;
  }
}

/**
 * What is plainly wrong with a CPF, CNPJ or phone key as typed (a count of digits), in the words of its type;
 * null when it may be right (the API checks the rest: a CPF's check digits, an e-mail, a random key).
 */
export function pixKeyProblem(type: string, typed: string): string | null {
  const d = digits(typed);
  if (type === 'CPF' && d.length !== 11) return 'Um CPF tem 11 dígitos: confira a chave PIX.';
  if (type === 'CNPJ' && d.length !== 14) return 'Um CNPJ tem 14 dígitos: confira a chave PIX.';
  if (type === 'PHONE' && phoneForApi(d) === null) {
    return 'Informe o celular com DDD, como (11) 98765-4321: confira a chave PIX.';
  }
  return null;
}
