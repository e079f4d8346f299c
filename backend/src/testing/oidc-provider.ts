/**
 * A real OpenID provider for tests: panva's certified `oidc-provider` on loopback, with its
 * development sign-in and consent pages, PKCE required, and accounts the test edits (groups, e-mail
 * verification). `sign` makes tokens with the provider's own key (or another) for the forged cases.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by subject: the login typed at the provider's sign-in page. */
  accounts: Map<string, ProviderAccount>;
  /** Signs a token as the provider would (its current key), or with `key` under `kid`. */
  sign(payload: JWTPayload, options?: { key?: CryptoKey; kid?: string }): Promise<string>;
  /** A new signing key: the provider publishes and signs with it from now on. */
  rotate(): Promise<void>;
  stop(): Promise<void>;
}

async function signingKey(kid: string) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const clientId = 'argus-test';
  const clientSecret = 'provider-test-client-secret-0123456789abcdef';
  const accounts = new Map<string, ProviderAccount>();
  let generation = 1;
  let key = await signingKey(`test-key-${generation}`);
  let handler: http.RequestListener = () => undefined;
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const callbackOrigin = new URL(redirectUri).origin;

  function build() {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [redirectUri],
          post_logout_redirect_uris: [`${callbackOrigin}/login`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [key.jwk] },
      cookies: { keys: ['provider-test-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
      // what real providers do with groups and e-mail: put them in the ID token itself
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
      findAccount: (_ctx, sub) => {
        const account = accounts.get(sub);
        return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
      },
    });
    handler = provider.callback();
  }
  build();

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async sign(payload, options = {}) {
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? key.jwk.kid })
        .sign(options.key ?? key.privateKey);
    },
    async rotate() {
      generation += 1;
      key = await signingKey(`test-key-${generation}`);
      build();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
