import { isIP } from "node:net";

/** The IPv6 prefix length an address is counted by unless configured otherwise: one /64 is one subscriber's LAN. */
export const DEFAULT_IPV6_RATE_LIMIT_PREFIX = 64;

/**
 * The key a client address is counted under by rate limits and sign-in
 * throttling, so that one client cannot get several budgets by spelling its
 * address differently or moving within its own network:
 * - IPv4: its dotted text (`1.2.3.4`);
 * - IPv4-mapped IPv6 (`::ffff:1.2.3.4`, `0:0:0:0:0:ffff:102:304`): that IPv4's text;
 * - other IPv6: its first `ipv6Prefix` bits (default 64) as a network in
 *   canonical text (lower case, the longest run of zeros compressed, no zone id),
 *   e.g. `2001:db8:1:2::/64`.
 * Null when `address` is not an IP address. Pure: no I/O.
 */
export function rateLimitKeyOf(address: string, ipv6Prefix: number = DEFAULT_IPV6_RATE_LIMIT_PREFIX): string | null {
  if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 0 || ipv6Prefix > 128) throw new RangeError("ipv6Prefix must be an integer from 0 to 128");
  const version = isIP(address);
  // Node accepts only canonical dotted IPv4 (no leading zeros, no short forms).
  if (version === 4) return address;
  if (version !== 6) return null;
  // A zone id (`fe80::1%eth0`) names the peer's interface, not another client.
  const groups = hextets(address.replace(/%.*$/s, ""));
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  const masked = groups.map((group, i) => {
    const kept = Math.min(16, Math.max(0, ipv6Prefix - i * 16));
    return kept === 0 ? 0 : group & ((0xffff << (16 - kept)) & 0xffff);
  });
  return `${canonicalIpv6(masked.map((g) => g.toString(16)).join(":"))}/${ipv6Prefix}`;
}

/** The canonical text of a valid IPv6 address, by the WHATWG URL serializer (RFC 5952 form). */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/** The eight 16-bit groups of a valid IPv6 address (without zone id). */
function hextets(address: string): number[] {
  // The canonical text has hex groups only (an embedded IPv4 is turned into two) and at most one `::`.
  const [head = "", tail] = canonicalIpv6(address).split("::");
  const parse = (part: string): number[] => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}
