import ipaddr from 'ipaddr.js';

type V6 = ipaddr.IPv6;

const v4 = (hi: number, lo: number) =>
  new ipaddr.IPv4([(hi >> 8) & 0xff, hi & 0xff, (lo >> 8) & 0xff, lo & 0xff]);

/**
 * IPv6 forms that denote an IPv4 host outright: mapped ::ffff:a.b.c.d, SIIT ::ffff:0:a.b.c.d and the
 * deprecated compatible ::a.b.c.d (except :: and ::1). They are the IPv4 address, for every purpose.
 */
function denotedIpv4(v6: V6): ipaddr.IPv4 | null {
  const p = v6.parts;
  const zero = (n: number) => p.slice(0, n).every((x) => x === 0);
  if (zero(5) && p[5] === 0xffff) return v4(p[6]!, p[7]!);
  if (zero(4) && p[4] === 0xffff && p[5] === 0) return v4(p[6]!, p[7]!);
  if (zero(6) && (p[6] !== 0 || p[7]! > 1)) return v4(p[6]!, p[7]!);
  return null;
}

/**
 * IPv4 addresses a translated or tunnelled IPv6 address carries and would reach: NAT64 64:ff9b::/96 (low 32
 * bits), 6to4 2002::/16 (bits 16–47), Teredo 2001::/32 (server in bits 32–63, client as the inverted low 32).
 */
function carriedIpv4s(v6: V6): ipaddr.IPv4[] {
  const p = v6.parts;
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return [v4(p[6]!, p[7]!)];
  if (p[0] === 0x2002) return [v4(p[1]!, p[2]!)];
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
  return [];
}

/**
 * Canonical text of an IP address: an IPv6 form denoting an IPv4 host (mapped, SIIT, compatible) becomes that
 * IPv4, other IPv6 is RFC 5952 short lowercase. Returns null for anything that is not exactly one address
 * (ranges, ports, zones, junk). The IP allow-list and the notification-target rules both read addresses here.
 */
export function canonicalIp(raw: string): string | null {
  const text = raw.trim();
  if (text === '' || text.includes('/') || text.includes('%')) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text).toString();
  if (!text.includes(':') || !ipaddr.IPv6.isValid(text)) return null;
  const v6 = ipaddr.IPv6.parse(text);
  return denotedIpv4(v6)?.toString() ?? v6.toRFC5952String();
}

/**
 * Only globally routable unicast addresses may be notified in production. ipaddr.js names every special range
 * (loopback, private, linkLocal, carrierGradeNat, multicast, unspecified, broadcast, reserved, uniqueLocal,
 * ...); anything but plain `unicast` is refused. IPv6 that reaches an IPv4 host (mapped, compatible, NAT64,
 * 6to4, Teredo) is judged by every IPv4 address it carries; the local-use NAT64 prefix 64:ff9b:1::/48 is
 * refused outright (where it leads is a local decision).
 */
export function isPublicAddress(address: string): boolean {
  const canonical = canonicalIp(address);
  if (canonical === null) return false;
  const parsed = ipaddr.parse(canonical);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as V6;
  const carried = carriedIpv4s(v6);
  if (carried.length > 0) return carried.every((a) => a.range() === 'unicast');
  return v6.range() === 'unicast';
}
