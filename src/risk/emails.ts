import { domainToASCII } from 'node:url';

/**
 * How the risk rules compare e-mail addresses and domains: by the mailbox they reach, not by the text typed, so
 * a blocked buyer cannot get past a list by writing the same address another way (docs/decisions.md, Risk).
 *
 * - The domain: case-folded, its trailing dots removed (`example.com.` is the fully qualified `example.com`),
 *   an internationalized name in its ASCII (punycode) form.
 * - The local part: case-folded (no provider delivers by case), and its `+tag` removed whatever the provider:
 *   subaddressing (RFC 5233) is what the large providers do, and a blocklist errs towards matching.
 * - Gmail (`gmail.com`, `googlemail.com`, one mailbox under either) ignores the dots of the local part: they are
 *   removed there, and `googlemail.com` is read as `gmail.com`.
 */
const DOTS_IGNORED = new Set(['gmail.com', 'googlemail.com']);
const ALIASES: ReadonlyMap<string, string> = new Map([['googlemail.com', 'gmail.com']]);

/** A domain as the rules compare it; null when it is no domain (an empty label, spaces, an @). */
export function canonicalDomain(raw: string): string | null {
  const text = raw.trim().replace(/\.+$/, '');
  if (text === '' || /[\s@]/.test(text)) return null;
  const ascii = domainToASCII(text.toLowerCase());
  if (ascii === '' || ascii.split('.').some((label) => label === '')) return null;
  return ascii;
}

/** An address as the rules compare it; null when it is no address (no single @, an empty part). */
export function canonicalEmail(raw: string): string | null {
  const text = raw.trim();
  const at = text.lastIndexOf('@');
  if (at <= 0 || text.indexOf('@') !== at) return null;
  const domain = canonicalDomain(text.slice(at + 1));
  if (domain === null) return null;
  let local = text.slice(0, at).toLowerCase();
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (DOTS_IGNORED.has(domain)) local = local.replace(/\./g, '');
  if (local === '' || /\s/.test(local)) return null;
  return `${local}@${ALIASES.get(domain) ?? domain}`;
}

/** A domain and every parent domain of it with at least two labels (`a.b.example` → itself, `b.example`). */
export function domainAndParents(domain: string): string[] {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'));
  return out;
}
