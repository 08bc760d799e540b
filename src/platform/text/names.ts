import { isIPv6 } from 'node:net';

/** Longest name a person or an account may have (it is printed in e-mails and the panel). */
export const MAX_NAME_LENGTH = 120;

/** Control characters, line and paragraph separators, bidi overrides and other invisible format characters. */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * What a mail client would make a link of, read after compatibility folding (a full-width colon or slash is the
 * ASCII one, an ideographic full stop a dot): a scheme before a slash or backslash (`http:/\`, `https：//`), a
 * scheme that needs none (`mailto:`, `javascript:`), `www.`, a dotted name ending in letters (`loja.com`,
 * `ana@evil.com.br`, `bit.ly/x`), a dotted IPv4 address and an IPv6 one (IPV6_CANDIDATES). Dots between single
 * letters (`S.A.`, `J. R.`) and numbers (`Loja 2.0`) stay allowed, and so do times (`10:30`); an IPv4 address in
 * hex or octal parts is refused (DISGUISED_IPV4).
 */
const LINK_PATTERNS = [
  /[a-z][a-z0-9+.-]*\s*:\s*[/\\]/i,
  /\b(?:https?|ftp|file|mailto|tel|sms|data|javascript|vbscript|wss?)\s*:/i,
  /\bwww\d*\./i,
  /[\p{L}\p{N}](?:[\p{L}\p{N}_-]*[\p{L}\p{N}])?\.\p{L}{2,}/u,
  /\d{1,3}(?:\.\d{1,3}){3}/,
];
/**
 * A run of hex digits, colons and dots holding two colons or more, not inside a word (`2001:db8::1`, `::1`,
 * `[fe80::1%eth0]`, `::ffff:10.0.0.1`): an IPv6 address when Node's parser says it is one, its zone left aside.
 */
const IPV6_CANDIDATES = /(?<![\p{L}\p{N}])[0-9a-f]*:[0-9a-f.]*:[0-9a-f:.]*(?:%[\p{L}\p{N}]+)?/giu;
const DOTS = /[\u3002\uff61\ufe12\u2024]/g;
/**
 * A dotted run of numbers one of which is written in hex (`0x7f.1`, `0x7f000001`) or octal (`0177.0.0.1`): how
 * an IPv4 address is disguised (a browser reads each as one), never how a name writes a number. Decimal
 * shorthand (`127.1`, `10.1.1`) is how versions and prices are written too (`Café 2.0`): allowed.
 */
const DISGUISED_IPV4 =
  /(?<![\p{L}\p{N}.])(?:0x[0-9a-f]*|\d+)(?:\.(?:0x[0-9a-f]*|\d+)){0,3}\.?(?![\p{L}\p{N}.])/giu;
const HEX_OR_OCTAL_PART = /(?:^|\.)(?:0x|0\d)/i;

/** Whether `run` is an IPv4 address written in hex or octal parts, as a URL's host reads it. */
function disguisedIpv4(run: string): boolean {
  // one number alone is an address only in hex (`0x7f000001`): `Lote 007` is a lot number
  if (!HEX_OR_OCTAL_PART.test(run) || (!run.includes('.') && !/^0x/i.test(run))) return false;
  try {
    return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(new URL(`http://${run}/`).hostname);
  } catch {
    return false;
  }
}

/** The text as a mail client may read it: compatibility forms folded, look-alike dots made dots. */
function folded(text: string): string {
  return text.normalize('NFKC').replace(DOTS, '.');
}

/** Whether a mail client could turn some of `text` into a link (see LINK_PATTERNS). */
export function looksLikeLink(text: string): boolean {
  const plain = folded(text);
  if (LINK_PATTERNS.some((p) => p.test(plain))) return true;
  for (const [run] of plain.matchAll(IPV6_CANDIDATES)) {
    if (isIPv6(run.replace(/%.*$/, '').replace(/\.$/, ''))) return true;
  }
  for (const [run] of plain.matchAll(DISGUISED_IPV4)) if (disguisedIpv4(run)) return true;
  return false;
}

export interface NameRules {
  /** Longest allowed, in characters (default MAX_NAME_LENGTH). */
  maxLength?: number;
  /** An empty name is allowed (an API key's). */
  allowEmpty?: boolean;
}

/**
 * Why `name` (already trimmed) cannot be a name printed to other people (a person's, an account's, an API key's,
 * a payment link's title), or null when it can: one line of printable text, not too long, nothing a mail client
 * would make a link of (a link there would be the gateway's word for someone else's page).
 */
export function nameProblem(name: string, rules: NameRules = {}): string | null {
  const max = rules.maxLength ?? MAX_NAME_LENGTH;
  if (name === '') return rules.allowEmpty ? null : 'must not be empty';
  if ([...name].length > max) return `must be at most ${max} characters`;
  if (NOT_PRINTABLE.test(name)) return 'must be one line of printable text';
  if (looksLikeLink(name)) return 'must be plain text: no link, web address or domain name';
  return null;
}

/**
 * A name stored before these rules (or from a payer) as it may be printed in an e-mail: itself when it passes
 * them, else `fallback`.
 */
export function nameForMail(name: string | null | undefined, fallback: string): string {
  const trimmed = (name ?? '').trim();
  return trimmed !== '' && nameProblem(trimmed, { maxLength: 200 }) === null ? trimmed : fallback;
}

/** "Olá, Ana." for a name that may be printed, "Olá." otherwise. */
export function greeting(name: string | null | undefined): string {
  const printable = nameForMail(name, '');
  return printable ? `Olá, ${printable}.` : 'Olá.';
}
