import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { isPublicAddress } from '../platform/net/ip.js';

/** Thrown (and classified as not retryable) when a target address is refused by the production rules. */
export const TARGET_REFUSED = 'ETARGETREFUSED';

function refusedError(message: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(message);
  err.code = TARGET_REFUSED;
  return err;
}

/** The URL's host as an address when it is an IP literal (brackets of IPv6 removed), else null. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

/**
 * Syntax rules for any notification target (webhook or postback): absolute http(s), a host, no credentials,
 * no control characters (URL parsing would silently drop them from what is sent). Returns an error or null.
 */
export function urlProblem(raw: string, field = 'webhookUrl'): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(raw)) return `${field} must not contain control characters`;
  if (/\s/.test(raw)) return `${field} must not contain spaces (percent-encode them as %20)`;
  // written as an absolute URL with its host: the URL parser would also take "http:///x" or "http:\\x" as
  // http://x/, so what is stored would not say where deliveries go
  if (/^https?:/i.test(raw) && !/^https?:\/\/[^/\\?#]/i.test(raw))
    return `${field} must be an absolute http(s) URL with a host`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${field} must be an absolute http(s) URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${field} must use http or https`;
  if (!url.hostname) return `${field} must name a host`;
  if (url.username || url.password) return `${field} must not carry credentials`;
  return null;
}

/**
 * Save-time check in production: the host (literal or every address it resolves to now) must be public. A
 * name that does not resolve now is accepted: it cannot reach anything yet, DNS may not have propagated, and
 * the connect-time lookup guard checks whatever it resolves to at every attempt.
 */
export async function addressProblem(raw: string, field = 'webhookUrl'): Promise<string | null> {
  const url = new URL(raw);
  const literal = literalAddress(url);
  if (literal) return isPublicAddress(literal) ? null : `${field} points to a non-public address`;
  // loopback by name (RFC 6761), whatever this machine's resolver says of `localhost.` or `x.localhost`
  const name = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return `${field} points to a non-public address`;
  let addresses: LookupAddress[];
  try {
    addresses = await new Promise((resolve, reject) =>
      dnsLookup(url.hostname, { all: true }, (err, list) => (err ? reject(err) : resolve(list))),
    );
  } catch {
    return null;
  }
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  // the message does not say what the name resolves to: the form must not be a DNS oracle for internal names
  return bad ? `${field} host ${url.hostname} is not a public address` : null;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for the socket connect options: resolves, then refuses any non-public address, so a name that
 * was public when saved but resolves to an internal address now (DNS rebinding) is still refused.
 */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true } as { all: true }, (err, list) => {
    if (err) return callback(err, []);
    const bad = list.find((a) => !isPublicAddress(a.address));
    if (bad) return callback(refusedError(`${hostname} is not a public address`), []); // shown to the merchant
    if (list.length === 0) return callback(refusedError(`${hostname} has no address`), []);
    if (options.all) return callback(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
}
