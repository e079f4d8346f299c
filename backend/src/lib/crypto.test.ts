import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { equalDigests, randomBase62, randomDigits, randomToken, safeEqual, sha256 } from './crypto.js';

describe('crypto helpers', () => {
  it('makes base62 strings of the asked length with enough entropy to never repeat', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const value = randomBase62(43);
      assert.match(value, /^[0-9A-Za-z]{43}$/);
      seen.add(value);
    }
    assert.equal(seen.size, 1000);
  });

  it('makes numeric codes with leading zeros kept', () => {
    const codes = Array.from({ length: 2000 }, () => randomDigits(6));
    assert.ok(codes.every((code) => /^\d{6}$/.test(code)));
    assert.ok(
      codes.some((code) => code.startsWith('0')),
      'leading zeros occur',
    );
  });

  it('makes URL-safe tokens', () => {
    assert.match(randomToken(32), /^[A-Za-z0-9_-]{43}$/);
  });

  it('hashes with SHA-256 hex', () => {
    assert.equal(sha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('compares strings of any length without throwing', () => {
    assert.equal(safeEqual('secret', 'secret'), true);
    assert.equal(safeEqual('secret', 'secreT'), false);
    assert.equal(safeEqual('secret', 'secret-longer'), false);
    assert.equal(safeEqual('', ''), true);
  });

  it('compares digests, refusing another one or another length without throwing', () => {
    const digest = sha256('agent key');
    assert.equal(equalDigests(digest, sha256('agent key')), true);
    assert.equal(equalDigests(digest, sha256('agent keY')), false);
    assert.equal(equalDigests(digest, digest.slice(1)), false);
    assert.equal(equalDigests(digest, `${digest.slice(1)}ā`), false);
  });
});
