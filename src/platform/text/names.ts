/** Longest name a person or an account may have (it is printed in e-mails and the panel). */
export const MAX_NAME_LENGTH = 120;

/** Control characters, line and paragraph separators, bidi overrides and other invisible format characters. */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** Text a mail client would turn into a link. */
const LINK = /:\/\/|\bwww\./i;

/**
 * Why `name` (already trimmed) cannot be a person's or an account's name, or null when it can: one line of
 * printable text, at most 120 characters, nothing a mail client would make a link of (names are printed in
 * e-mails sent to other people, and a link there would be the gateway's word for someone else's page).
 */
export function nameProblem(name: string): string | null {
  if (name === '') return 'must not be empty';
  if ([...name].length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters`;
  if (NOT_PRINTABLE.test(name)) return 'must be one line of printable text';
  if (LINK.test(name)) return 'must not contain a link';
  return null;
}
