/**
 * The address blocks an outbound request of the server may not reach (docs/decisions.md "One
 * outbound address policy"), as data: every entry of the IANA "IPv4 Special-Purpose Address
 * Registry" and the IANA "IPv6 Special-Purpose Address Registry" (both as of their 2025 editions,
 * https://www.iana.org/assignments/iana-ipv4-special-registry and
 * https://www.iana.org/assignments/iana-ipv6-special-registry), whatever their "Globally Reachable"
 * column says: no notification receiver lives at an anycast relay or an AS112 sink. Then what the
 * IANA address-space registries set apart outside them: IPv4 multicast ("IPv4 Multicast Address
 * Space Registry") and, for IPv6, everything outside 2000::/3, the only block the "Internet Protocol
 * Version 6 Address Space" registry allocates as Global Unicast (this covers the deprecated
 * IPv4-compatible ::/96, site-local fec0::/10 and multicast ff00::/8).
 *
 * `never`: not a receiver on any network, refused even with the private-address opt-in
 * (ARGUS_ALLOW_PRIVATE_WEBHOOKS); every other block is refused unless the opt-in is on.
 * `carriesIPv4`: an IPv6 spelling of an IPv4 address that the kernel (IPv4-mapped) or a NAT64
 * translator (the well-known prefix, how an IPv6-only host reaches IPv4 receivers) delivers to it:
 * the IPv4 address it carries decides. Other blocks that embed one (6to4, Teredo, the local-use
 * NAT64 prefix) are refused outright: deprecated or local by their registries.
 */
export interface SpecialBlock {
  block: string;
  name: string;
  /** Where the block is defined (the registry's RFC column). */
  rfc: string;
  never?: true;
  carriesIPv4?: true;
}

export const IPV4_SPECIAL_PURPOSE: readonly SpecialBlock[] = [
  { block: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791 §3.2', never: true },
  { block: '0.0.0.0/32', name: '"This host on this network"', rfc: 'RFC 1122 §3.2.1.3', never: true },
  { block: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918' },
  { block: '100.64.0.0/10', name: 'Shared Address Space', rfc: 'RFC 6598' },
  { block: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122 §3.2.1.3' },
  { block: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927' },
  { block: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918' },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890 §2.1' },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335' },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600' },
  { block: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723' },
  { block: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155' },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050 §2.2' },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050 §2.2' },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737' },
  { block: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535' },
  { block: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450' },
  { block: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526' },
  { block: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918' },
  { block: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534' },
  { block: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544' },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737' },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737' },
  { block: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112 §4', never: true },
  { block: '255.255.255.255/32', name: 'Limited Broadcast', rfc: 'RFC 8190, RFC 919 §7', never: true },
];

export const IPV4_OTHER: readonly SpecialBlock[] = [
  { block: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771', never: true },
];

export const IPV6_SPECIAL_PURPOSE: readonly SpecialBlock[] = [
  { block: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291' },
  { block: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', never: true },
  { block: '::ffff:0:0/96', name: 'IPv4-mapped Address', rfc: 'RFC 4291', carriesIPv4: true },
  { block: '64:ff9b::/96', name: 'IPv4-IPv6 Translation', rfc: 'RFC 6052', carriesIPv4: true },
  { block: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translation', rfc: 'RFC 8215' },
  { block: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666', never: true },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', never: true },
  { block: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928' },
  { block: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380, RFC 8190' },
  { block: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723' },
  { block: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155' },
  { block: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', rfc: 'RFC 9665' },
  { block: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180' },
  { block: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450' },
  { block: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535' },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843' },
  { block: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343' },
  { block: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', rfc: 'RFC 9374' },
  { block: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849' },
  { block: '2002::/16', name: '6to4', rfc: 'RFC 3056' },
  { block: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534' },
  { block: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637' },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602' },
  { block: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190' },
  { block: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291' },
];

/** The IPv6 address space outside Global Unicast 2000::/3, in three blocks (multicast first: never). */
export const IPV6_OTHER: readonly SpecialBlock[] = [
  { block: 'ff00::/8', name: 'Multicast', rfc: 'RFC 4291', never: true },
  { block: '::/96', name: 'IPv4-compatible Address (deprecated)', rfc: 'RFC 4291 §2.5.5.1' },
  { block: '::/3', name: 'Outside Global Unicast (Reserved by IETF)', rfc: 'RFC 4291' },
  { block: '4000::/2', name: 'Outside Global Unicast (Reserved by IETF)', rfc: 'RFC 4291' },
  { block: '8000::/1', name: 'Outside Global Unicast (Reserved by IETF, ULA, link-local)', rfc: 'RFC 4291' },
];
