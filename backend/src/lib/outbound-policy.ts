/**
 * The one outbound address policy (docs/decisions.md "One outbound address policy"): whether the
 * server may open a connection to an address someone else chose (a channel's URL today, network
 * checks tomorrow). Refused: every block of lib/special-addresses.ts, every address of the server's
 * own interfaces, and an IPv6 address whose embedded IPv4 (mapped, compatible, translated, NAT64,
 * 6to4, Teredo) is refused (for IPv4-mapped and the well-known NAT64 prefix, only then). `allowPrivate` (the operator's opt-in for receivers inside their network)
 * lifts all of it but the blocks that are never a receiver (unspecified, broadcast, multicast…).
 *
 * Addresses are read in every textual form a resolver or URL parser accepts (3221225986,
 * 0xc0.0.2.2, 0300.0.2.2, 127.1, ::ffff:c000:202), so a form the WHATWG parser left alone cannot
 * slip by; outbound-connect.ts applies the policy to the address actually connected to.
 */
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import {
  IPV4_OTHER,
  IPV4_SPECIAL_PURPOSE,
  IPV6_OTHER,
  IPV6_SPECIAL_PURPOSE,
  type SpecialBlock,
} from './special-addresses.js';

export interface OutboundPolicy {
  /** The operator's opt-in: internal addresses (private, loopback, this server…) may be reached. */
  allowPrivate: boolean;
  /** The server's own addresses; read from its interfaces at every check when not given. */
  ownAddresses?: () => Iterable<string>;
  /** Blocks (CIDR) refused even with `allowPrivate`: a caller's own `never` on top of the table's. */
  alwaysRefused?: readonly { block: string; name: string }[];
}

export interface Refusal {
  reason: string;
  /** Refused even with `allowPrivate`. */
  never: boolean;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Compiled = SpecialBlock & { range: [Address, number]; kind: 'ipv4' | 'ipv6' };

const compile = (blocks: readonly SpecialBlock[]): Compiled[] =>
  blocks.map((entry) => {
    const range = ipaddr.parseCIDR(entry.block);
    return { ...entry, range, kind: range[0].kind() };
  });
const TABLE = compile([...IPV4_SPECIAL_PURPOSE, ...IPV4_OTHER, ...IPV6_SPECIAL_PURPOSE, ...IPV6_OTHER]);

/**
 * An address in any textual form (brackets and a zone id allowed), or null when it is none. The
 * WHATWG URL parser reads it first, as it read the URL: ipaddr.js alone takes ::8.8.8.8 for
 * ::ffff:8.8.8.8 (a different address).
 */
export function parseAddress(text: string): Address | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%[^%]*$/, '');
  try {
    const host = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(/^\[(.*)\]$/, '$1');
    return ipaddr.isValid(host) ? ipaddr.parse(host) : null;
  } catch {
    return null;
  }
}

const within = (address: ipaddr.IPv6, cidr: string) => address.match(ipaddr.IPv6.parseCIDR(cidr));
const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);

/** The IPv4 address an IPv6 one carries (and reaches through a translator or tunnel), if any. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  // last 32 bits: mapped, translated (RFC 2765), NAT64 well-known prefix, compatible (not :: and ::1)
  if (['::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96'].some((cidr) => within(address, cidr)))
    return ipv4Of(p[6], p[7]);
  if (within(address, '::/96') && !within(address, '::/127')) return ipv4Of(p[6], p[7]);
  // RFC 6052 §2.2, a /48 prefix: two octets before the reserved bits 64-71, two after
  if (within(address, '64:ff9b:1::/48')) return ipv4Of(p[3], ((p[4] & 255) << 8) | (p[5] >> 8));
  if (within(address, '2002::/16')) return ipv4Of(p[1], p[2]);
  // Teredo: the client's address, every bit inverted (RFC 4380 §4)
  if (within(address, '2001::/32')) return ipv4Of(p[6] ^ 0xffff, p[7] ^ 0xffff);
  return null;
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
}

/** What a single address is refused as (its embedded IPv4 aside): "in <block> (…)", else this server's. */
function refusalOf(address: Address, own: Set<string>): { what: string; never: boolean } | null {
  const matches = TABLE.filter((entry) => entry.kind === address.kind() && address.match(entry.range));
  if (matches.length === 0)
    return own.has(address.toString()) ? { what: 'an address of this server', never: false } : null;
  // the most specific block names it; any `never` block makes it never
  const named = matches.reduce((best, entry) => (entry.range[1] > best.range[1] ? entry : best));
  if (named.carriesIPv4) return null; // its IPv4 address decides (this server's included)
  return {
    what: `in ${named.block} (${named.name}, ${named.rfc})`,
    never: matches.some((entry) => entry.never === true),
  };
}

/**
 * Why the policy refuses `text` (an IP address in any textual form), or null when it may be
 * reached. Something that is no address at all is refused as never (callers resolve names first).
 */
export function addressRefusal(text: string, policy: OutboundPolicy): Refusal | null {
  const address = parseAddress(text);
  if (!address) return { reason: `${text} is not an IP address`, never: true };
  const own = new Set(
    [...(policy.ownAddresses ?? interfaceAddresses)()].flatMap((a) => parseAddress(a)?.toString() ?? []),
  );
  const refusals: Refusal[] = [];
  const inner = address.kind() === 'ipv6' ? embeddedIPv4(address as ipaddr.IPv6) : null;
  const innerRefusal = inner && refusalOf(inner, own);
  // the embedded address first: it says where the request would really go
  if (inner && innerRefusal)
    refusals.push({
      reason: `${address.toString()} carries ${inner.toString()}, ${innerRefusal.what}`,
      never: innerRefusal.never,
    });
  const outer = refusalOf(address, own);
  if (outer) refusals.push({ reason: `${address.toString()} is ${outer.what}`, never: outer.never });
  for (const candidate of inner ? [address, inner] : [address])
    for (const entry of policy.alwaysRefused ?? []) {
      const range = ipaddr.parseCIDR(entry.block);
      if (candidate.kind() === range[0].kind() && candidate.match(range))
        refusals.unshift({ reason: `${address.toString()} is ${entry.name}`, never: true });
    }
  return refusals.find((r) => r.never) ?? (policy.allowPrivate ? null : (refusals[0] ?? null));
}
