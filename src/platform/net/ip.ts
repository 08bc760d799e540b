import ipaddr from 'ipaddr.js';

type V6 = ipaddr.IPv6;

const v4 = (hi: number, lo: number) =>
  new ipaddr.IPv4([(hi >> 8) & 0xff, hi & 0xff, (lo >> 8) & 0xff, lo & 0xff]);

/**
 * The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is: a dual-stack socket reports IPv4 peers
 * so, and it is that address for every purpose.
 */
function mappedIpv4(v6: V6): ipaddr.IPv4 | null {
  const p = v6.parts;
  if (p.slice(0, 5).every((x) => x === 0) && p[5] === 0xffff) return v4(p[6]!, p[7]!);
  return null;
}

/**
 * IPv4 addresses a translated or tunnelled IPv6 address carries and could reach: SIIT ::ffff:0:a.b.c.d and
 * the deprecated compatible ::a.b.c.d (except :: and ::1), NAT64 64:ff9b::/96 (low 32 bits), 6to4 2002::/16
 * (bits 16–47), Teredo 2001::/32 (server in bits 32–63, client as the inverted low 32). They stay IPv6
 * addresses (an allow-list entry ::1.2.3.4 does not admit 1.2.3.4), but a notification target is judged by them.
 */
function carriedIpv4s(v6: V6): ipaddr.IPv4[] {
  const p = v6.parts;
  const zero = (n: number) => p.slice(0, n).every((x) => x === 0);
  if (zero(4) && p[4] === 0xffff && p[5] === 0) return [v4(p[6]!, p[7]!)];
  if (zero(6) && (p[6] !== 0 || p[7]! > 1)) return [v4(p[6]!, p[7]!)];
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return [v4(p[6]!, p[7]!)];
  if (p[0] === 0x2002) return [v4(p[1]!, p[2]!)];
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
  return [];
}

/** ipaddr.js reads the deprecated compatible form ::a.b.c.d as mapped ::ffff:a.b.c.d; it is not. */
function parseV6(text: string): V6 {
  const compatible = /^::(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (compatible && ipaddr.IPv4.isValidFourPartDecimal(compatible[1]!)) {
    const [a, b, c, d] = ipaddr.IPv4.parse(compatible[1]!).octets as [number, number, number, number];
    return new ipaddr.IPv6([0, 0, 0, 0, 0, 0, (a << 8) | b, (c << 8) | d]);
  }
  return ipaddr.IPv6.parse(text);
}

/**
 * Canonical text of an IP address: an IPv4-mapped IPv6 address becomes that IPv4, other IPv6 is RFC 5952
 * short lowercase. Returns null for anything that is not exactly one address
 * (ranges, ports, zones, junk). The IP allow-list and the notification-target rules both read addresses here.
 */
export function canonicalIp(raw: string): string | null {
  const text = raw.trim();
  if (text === '' || text.includes('/') || text.includes('%')) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text).toString();
  if (!text.includes(':') || !ipaddr.IPv6.isValid(text)) return null;
  const v6 = parseV6(text);
  return mappedIpv4(v6)?.toString() ?? v6.toRFC5952String();
}

/**
 * Only globally routable unicast addresses may be notified in production. ipaddr.js names every special range
 * (loopback, private, linkLocal, carrierGradeNat, multicast, unspecified, broadcast, reserved, uniqueLocal,
 * ...); anything but plain `unicast` is refused. IPv6 that reaches an IPv4 host (mapped, SIIT, compatible,
 * NAT64, 6to4, Teredo) is judged by every IPv4 address it carries; the local-use NAT64 prefix 64:ff9b:1::/48 is
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

/**
 * What a per-address limit counts a request's source as: an IPv4 address itself, an IPv6 address by its /64
 * (one subscriber's network: a host there picks any of its 2^64 addresses at will, so counting exact addresses
 * would give it as many budgets). Text that is no address is counted as given.
 */
export function ipBucket(raw: string): string {
  const canonical = canonicalIp(raw);
  if (canonical === null) return raw;
  if (!canonical.includes(':')) return canonical;
  const p = (ipaddr.parse(canonical) as V6).parts;
  return `${new ipaddr.IPv6([p[0]!, p[1]!, p[2]!, p[3]!, 0, 0, 0, 0]).toRFC5952String()}/64`;
}
