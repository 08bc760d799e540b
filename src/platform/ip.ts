import ipaddr from 'ipaddr.js';

/**
 * Canonical text of an IP address: IPv4-mapped IPv6 becomes IPv4, IPv6 is RFC 5952 short lowercase.
 * Returns null for anything that is not exactly one address (ranges, ports, zones, junk).
 */
export function canonicalIp(raw: string): string | null {
  const text = raw.trim();
  if (text === '' || text.includes('/') || text.includes('%')) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text).toString();
  if (!text.includes(':') || !ipaddr.IPv6.isValid(text)) return null;
  const v6 = ipaddr.IPv6.parse(text);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return v6.toRFC5952String();
}
