import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddress } from './client-ip.js';

describe('client address', () => {
  const cases: [string | undefined, string | undefined, string][] = [
    ['203.0.113.9', '127.0.0.1', '203.0.113.9'],
    ['1.1.1.1, 10.0.0.2, 198.51.100.7', '127.0.0.1', '198.51.100.7'],
    ['spoofed, 198.51.100.7:51234', '127.0.0.1', '198.51.100.7'],
    ['2001:db8::1', '127.0.0.1', '2001:db8::1'],
    ['[2001:DB8::2]:443', '127.0.0.1', '2001:db8::2'],
    ['::ffff:192.0.2.4', '127.0.0.1', '192.0.2.4'],
    ['not-an-ip', '::ffff:127.0.0.1', '127.0.0.1'],
    ['1.1.1.1, <script>', '10.1.1.1', '10.1.1.1'],
    ['', '10.1.1.1', '10.1.1.1'],
    ['999.1.1.1', '10.1.1.1', '10.1.1.1'],
    [undefined, undefined, 'unknown'],
  ];
  for (const [header, socket, expected] of cases) {
    it(`X-Forwarded-For ${JSON.stringify(header)} from ${socket} → ${expected}`, () => {
      assert.equal(clientAddress(header, socket), expected);
    });
  }

  it('uses the last entry across repeated headers', () => {
    assert.equal(clientAddress(['1.1.1.1', '2.2.2.2'], '127.0.0.1'), '2.2.2.2');
  });
});
