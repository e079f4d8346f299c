/**
 * The outbound address policy, table-driven: the first and last address of every block of the IANA
 * IPv4 and IPv6 special-purpose registries (listed here on their own, so a block dropped from the
 * policy's table fails), the rest of the address space IANA sets apart, every textual form an
 * address can take before and after the WHATWG URL parser, the IPv4 address an IPv6 one carries,
 * and the server's own interface addresses.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { addressRefusal } from './outbound-policy.js';

const strict = { allowPrivate: false, ownAddresses: () => [] };
const optIn = { allowPrivate: true, ownAddresses: () => [] };

// block → refused even with the opt-in ("never")
const IPV4_REGISTRY: [string, boolean][] = [
  ['0.0.0.0/8', true],
  ['0.0.0.0/32', true],
  ['10.0.0.0/8', false],
  ['100.64.0.0/10', false],
  ['127.0.0.0/8', false],
  ['169.254.0.0/16', false],
  ['172.16.0.0/12', false],
  ['192.0.0.0/24', false],
  ['192.0.0.0/29', false],
  ['192.0.0.8/32', false],
  ['192.0.0.9/32', false],
  ['192.0.0.10/32', false],
  ['192.0.0.170/32', false],
  ['192.0.0.171/32', false],
  ['192.0.2.0/24', false],
  ['192.31.196.0/24', false],
  ['192.52.193.0/24', false],
  ['192.88.99.0/24', false],
  ['192.168.0.0/16', false],
  ['192.175.48.0/24', false],
  ['198.18.0.0/15', false],
  ['198.51.100.0/24', false],
  ['203.0.113.0/24', false],
  ['240.0.0.0/4', true],
  ['255.255.255.255/32', true],
  ['224.0.0.0/4', true], // multicast, from the IPv4 address-space registry
];
const IPV6_REGISTRY: [string, boolean][] = [
  ['::1/128', false],
  ['::/128', true],
  ['64:ff9b:1::/48', false],
  ['100::/64', true],
  ['100:0:0:1::/64', true],
  ['2001::/23', false],
  ['2001::/32', false],
  ['2001:1::1/128', false],
  ['2001:1::2/128', false],
  ['2001:1::3/128', false],
  ['2001:2::/48', false],
  ['2001:3::/32', false],
  ['2001:4:112::/48', false],
  ['2001:10::/28', false],
  ['2001:20::/28', false],
  ['2001:30::/28', false],
  ['2001:db8::/32', false],
  ['2002::/16', false],
  ['2620:4f:8000::/48', false],
  ['3fff::/20', false],
  ['5f00::/16', false],
  ['fc00::/7', false],
  ['fe80::/10', false],
  // outside Global Unicast 2000::/3 (the IPv6 address-space registry)
  ['::/96', false],
  ['4000::/2', false],
  ['8000::/1', false],
  ['fec0::/10', false],
  ['ff00::/8', true],
];

/**
 * A block's first and last address, and one with every host byte 0x08: the IPv4 address any IPv6
 * block carries is then 8.8.8.8 (public, so the opt-in may reach it), for Teredo (bits inverted)
 * once its bytes are 0xf7.
 */
function samples(block: string): { edges: string[]; inside: string } {
  const [network, bits] = ipaddr.parseCIDR(block);
  const bytes = network.toByteArray();
  const fill = (pattern: number) =>
    ipaddr
      .fromByteArray(
        bytes.map((byte, index) => {
          const hostMask = (1 << Math.min(8, Math.max(0, (index + 1) * 8 - bits))) - 1;
          return byte | (pattern & hostMask);
        }),
      )
      .toString();
  return { edges: [fill(0), fill(0xff)], inside: fill(block === '2001::/32' ? 0xf7 : 0x08) };
}

describe('outbound address policy', () => {
  for (const [registry, table] of [
    ['IPv4', IPV4_REGISTRY],
    ['IPv6', IPV6_REGISTRY],
  ] as const)
    it(`refuses every special-purpose ${registry} block at both ends; with the opt-in only those never a receiver`, () => {
      for (const [block, never] of table) {
        const { edges, inside } = samples(block);
        for (const address of [...edges, inside]) {
          const refused = addressRefusal(address, strict);
          assert.ok(refused, `${address} (${block}) must be refused`);
          if (never) assert.ok(addressRefusal(address, optIn)?.never, `${address} (${block}) is never reached`);
        }
        if (!never) assert.equal(addressRefusal(inside, optIn), null, `${inside} (${block}) with the opt-in`);
      }
    });

  it('lets public addresses through, the IPv4-mapped and NAT64 spellings of one included', () => {
    for (const address of [
      '1.1.1.1',
      '8.8.8.8',
      '93.184.216.34',
      '172.32.0.1',
      '100.128.0.1',
      '192.0.3.1',
      '223.255.255.255',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
    ])
      assert.equal(addressRefusal(address, strict), null, address);
  });

  // 192.0.2.2 (this machine's address) and 127.0.0.1, as they reach the policy raw or through a URL
  const FORMS: [string, string][] = [
    ['3221225986', '192.0.2.2'],
    ['0xc0000202', '192.0.2.2'],
    ['0xc0.0.2.2', '192.0.2.2'],
    ['0300.0.2.2', '192.0.2.2'],
    ['0300.0000.0002.0002', '192.0.2.2'],
    ['192.0.514', '192.0.2.2'],
    ['192.514', '192.0.2.2'],
    ['127.1', '127.0.0.1'],
    ['0177.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['[::ffff:192.0.2.2]', '192.0.2.2'],
    ['[::ffff:c000:202]', '192.0.2.2'],
    ['[0:0:0:0:0:ffff:c000:0202]', '192.0.2.2'],
    ['[::ffff:0:c000:202]', '192.0.2.2'], // IPv4-translated (RFC 2765)
    ['[::192.0.2.2]', '192.0.2.2'], // IPv4-compatible
    ['[64:ff9b::192.0.2.2]', '192.0.2.2'], // NAT64 well-known prefix
    ['[64:ff9b::127.0.0.1]', '127.0.0.1'],
    ['[64:ff9b:1:c000:2:200::]', '192.0.2.2'], // NAT64 local-use /48 (RFC 6052 §2.2)
    ['[2002:c000:202::1]', '192.0.2.2'], // 6to4
    ['[2001:0:4136:e378:8000:63bf:3fff:fdfd]', '192.0.2.2'], // Teredo client (bits inverted)
    ['[::ffff:127.0.0.1]', '127.0.0.1'],
  ];

  it('reads every textual form of an IPv4 address, raw and as the URL parser hands it on', () => {
    for (const [form, ipv4] of FORMS) {
      const hostname = new URL(`http://${form}:8080/hook`).hostname;
      for (const text of [form, hostname]) {
        const refused = addressRefusal(text, strict);
        assert.ok(refused, `${text} must be refused`);
        assert.match(refused.reason, new RegExp(ipv4.replace(/\./g, '\\.')), `${text}: ${refused.reason}`);
      }
    }
  });

  it('checks the IPv4 address an IPv6 one carries, even with the opt-in', () => {
    for (const address of ['::ffff:224.0.0.1', '64:ff9b::255.255.255.255', '2002:e000:1::1', '::ffff:0.0.0.0'])
      assert.equal(addressRefusal(address, optIn)?.never, true, address);
    assert.equal(addressRefusal('::ffff:10.0.0.1', optIn), null, 'a private IPv4 is what the opt-in allows');
  });

  it("refuses the server's own addresses in every spelling, unless the operator opted in", () => {
    const own = { allowPrivate: false, ownAddresses: () => ['93.184.216.34', '2a00:1450:4001::200e'] };
    for (const address of [
      '93.184.216.34',
      '1572395042',
      '::ffff:93.184.216.34',
      '64:ff9b::5db8:d822',
      '2a00:1450:4001::200e',
      '2a00:1450:4001:0:0:0:0:200e',
    ]) {
      assert.match(addressRefusal(address, own)?.reason ?? '', /an address of this server/, address);
      assert.equal(addressRefusal(address, { ...own, allowPrivate: true }), null, address);
    }
    assert.equal(addressRefusal('93.184.216.35', own), null);
  });

  it("refuses every address of this machine's interfaces as read at the check", () => {
    const addresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
    assert.ok(addresses.length > 0);
    for (const address of addresses) assert.ok(addressRefusal(address, { allowPrivate: false }), address);
  });

  it('refuses what is not an address at all', () => {
    assert.equal(addressRefusal('example.com', strict)?.never, true);
    assert.equal(addressRefusal('', optIn)?.never, true);
  });
});
