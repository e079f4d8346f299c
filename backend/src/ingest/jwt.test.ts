import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { FakeClock } from '../lib/clock.js';
import { sha256 } from '../lib/crypto.js';
import { createAgentTokenVerifier } from './jwt.js';

const SECRET = 'jwt-unit-test-secret-0123456789abcdef';

async function sign(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
}

describe('agent token verifier', () => {
  it('returns sub, ak and the hash of ak of a valid token', async () => {
    const clock = new FakeClock(new Date('2026-11-21T10:00:00Z'));
    const verifier = createAgentTokenVerifier({ secret: SECRET, clock });
    const iat = clock.now().getTime() / 1000;
    assert.deepEqual(await verifier.verify(await sign({ sub: 'm1', ak: 'k', iat, exp: iat + 300 })), {
      sub: 'm1',
      ak: 'k',
      akHash: sha256('k'),
      iat,
      exp: iat + 300,
    });
    const withoutKey = await verifier.verify(await sign({ sub: 'm2', iat, exp: iat + 300 }));
    assert.deepEqual([withoutKey?.ak, withoutKey?.akHash], [null, null]);
  });

  it('refuses a sub that is not a printable string', async () => {
    const clock = new FakeClock(new Date('2026-11-21T10:00:00Z'));
    const verifier = createAgentTokenVerifier({ secret: SECRET, clock });
    const iat = clock.now().getTime() / 1000;
    for (const sub of ['', 'a\nb', 'x'.repeat(257)]) {
      assert.equal(await verifier.verify(await sign({ sub, iat, exp: iat + 300 })), null, JSON.stringify(sub));
    }
  });

  it('remembers at most cacheEntries verified tokens, and none past its exp', async () => {
    const clock = new FakeClock(new Date('2026-11-21T10:00:00Z'));
    const verifier = createAgentTokenVerifier({ secret: SECRET, clock, cacheEntries: 3 });
    const iat = clock.now().getTime() / 1000;
    const tokens = await Promise.all([1, 2, 3, 4].map((i) => sign({ sub: `m${i}`, iat, exp: iat + 60 })));
    for (const token of tokens) assert.ok(await verifier.verify(token));
    assert.equal(verifier.cacheSize(), 3);
    clock.advance(60_000);
    assert.equal(await verifier.verify(tokens[3] as string), null, 'expired, even though remembered');
    assert.equal(verifier.cacheSize(), 2);
  });
});
