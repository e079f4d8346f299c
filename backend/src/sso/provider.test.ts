/**
 * The ID token checks against a real provider's published keys (oidc-provider on loopback): every
 * forged token is refused — another audience or issuer, expired, a missing or replayed nonce, a key
 * the provider does not publish, `alg: none`, HS256 keyed with the public key — and a rotated key
 * is picked up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { base64url, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { createPublicKey } from 'node:crypto';
import type { SsoConfig } from '../config.js';
import { startTestProvider, type TestProvider } from '../testing/oidc-provider.js';
import { createOidcProvider, type OidcProvider } from './provider.js';

const NONCE = 'nonce-of-this-sign-in';

describe('ID token verification against a real provider', () => {
  let op: TestProvider;
  let verifier: OidcProvider;
  before(async () => {
    op = await startTestProvider('http://127.0.0.1:1/api/auth/sso/callback');
    const config: SsoConfig = {
      issuer: op.issuer,
      clientId: op.clientId,
      clientSecret: op.clientSecret,
      scopes: ['openid'],
      groupsClaim: 'groups',
      buttonName: 'Test',
      linkVerifiedEmail: false,
      createUsers: true,
      groupMap: null,
    };
    verifier = createOidcProvider(config, { keysCooldownMs: 0 });
  });
  after(async () => {
    await op.stop();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const claims = (extra: JWTPayload = {}): JWTPayload => ({
    iss: op.issuer,
    aud: op.clientId,
    sub: 'alice',
    iat: now(),
    exp: now() + 300,
    nonce: NONCE,
    ...extra,
  });
  const refused = async (token: string, why: RegExp, nonce = NONCE) => {
    await assert.rejects(verifier.verifyIdToken(token, nonce), (error: Error) => {
      assert.match(error.message, why);
      assert.ok(!error.message.includes(token), 'the token is never in the message');
      return true;
    });
  };

  it('accepts a token the provider signed for this client with this nonce', async () => {
    const verified = await verifier.verifyIdToken(await op.sign(claims({ email: 'a@example.com' })), NONCE);
    assert.equal(verified.sub, 'alice');
    assert.equal(verified.email, 'a@example.com');
  });

  it('refuses a token for another audience, from another issuer, or expired', async () => {
    await refused(await op.sign(claims({ aud: 'another-client' })), /issued to another client/);
    await refused(await op.sign(claims({ aud: ['another-client', op.clientId] })), /issued to another client/);
    await refused(await op.sign(claims({ iss: 'https://evil.example' })), /another issuer/);
    await refused(await op.sign(claims({ iat: now() - 7200, exp: now() - 3600 })), /expired/);
  });

  it('refuses a missing, a wrong or a replayed nonce', async () => {
    const { nonce: _dropped, ...withoutNonce } = claims();
    await refused(await op.sign(withoutNonce), /nonce/);
    await refused(await op.sign(claims({ nonce: 'someone-else' })), /nonce/);
    // a token from an earlier sign-in does not fit the nonce of a new one
    await refused(await op.sign(claims()), /nonce/, 'nonce-of-the-next-sign-in');
  });

  it('refuses a key the provider does not publish, alg none and HS256 keyed with the public key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    await refused(
      await op.sign(claims(), { key: privateKey, kid: 'unknown-key' }),
      /key the provider does not publish/,
    );
    // the provider's kid, but another key: the signature does not verify
    await refused(await op.sign(claims(), { key: privateKey }), /signature does not verify/);

    const header = (alg: string) => base64url.encode(JSON.stringify({ alg, kid: 'test-key-1' }));
    const body = base64url.encode(JSON.stringify(claims()));
    await refused(`${header('none')}.${body}.`, /algorithm is not accepted/);

    const jwks = (await (await fetch(`${op.issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    // the PEM of the provider's own public key as the HMAC secret: the classic key-confusion forgery
    const publicPem = createPublicKey({ key: jwks.keys[0] as never, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    const hs256 = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: 'test-key-1' })
      .sign(new TextEncoder().encode(publicPem));
    await refused(hs256, /algorithm is not accepted/);
  });

  it('picks up a rotated key', async () => {
    await verifier.verifyIdToken(await op.sign(claims()), NONCE);
    await op.rotate();
    const verified = await verifier.verifyIdToken(await op.sign(claims({ sub: 'after-rotation' })), NONCE);
    assert.equal(verified.sub, 'after-rotation');
  });
});
