/**
 * The OpenID provider as Argus talks to it (authorization code flow with PKCE): its discovery
 * document, the authorization URL, the code exchange and the ID token's verification with `jose`.
 * The signing keys come from the provider's `jwks_uri` through createRemoteJWKSet: cached, and
 * fetched again when a token names a key the cache does not hold (a rotated key is picked up).
 * Only asymmetric algorithms are accepted, so `alg: none` and HS256 signed with the public key fail.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { SsoConfig } from '../config.js';
import { Unauthenticated, Unavailable } from '../lib/errors.js';

/** What discovery must give for this flow. */
interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  end_session_endpoint?: string;
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const TIMEOUT_MS = 10_000;
/** Clocks of Argus and the provider may differ a little; more than this is an expired token. */
const CLOCK_TOLERANCE_S = 30;

export interface IdTokenClaims extends JWTPayload {
  sub: string;
  iss: string;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  preferred_username?: unknown;
}

/** A refusal of the provider's answer, worded for the person signing in (no token in it). */
export class SsoRefused extends Unauthenticated {
  constructor(message: string, code = 'sso_refused') {
    super(message, code);
  }
}

function isUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return ['https:', 'http:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

async function readDiscovery(issuer: string): Promise<Discovery> {
  const where = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(where, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const document = (await response.json()) as Partial<Discovery>;
  // the document must name the very issuer configured (OpenID Connect Discovery 1.0, section 4.3)
  if (document.issuer !== issuer) throw new Error(`discovery names issuer "${String(document.issuer)}"`);
  for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    if (!isUrl(document[field])) throw new Error(`discovery has no ${field}`);
  }
  return document as Discovery;
}

export interface ProviderOptions {
  /** Least time between two fetches of the keys for an unknown `kid` (jose's default: 30 s). */
  keysCooldownMs?: number;
}

export function createOidcProvider(config: SsoConfig, options: ProviderOptions = {}) {
  let discovered: Promise<{ document: Discovery; keys: ReturnType<typeof createRemoteJWKSet> }> | null = null;

  /** The discovery document, read once; a failure is forgotten so the next sign-in tries again. */
  function metadata() {
    discovered ??= readDiscovery(config.issuer).then((document) => ({
      document,
      keys: createRemoteJWKSet(new URL(document.jwks_uri), {
        timeoutDuration: TIMEOUT_MS,
        ...(options.keysCooldownMs === undefined ? {} : { cooldownDuration: options.keysCooldownMs }),
      }),
    }));
    return discovered.catch((error: unknown) => {
      discovered = null;
      throw new Unavailable(
        `The identity provider cannot be reached (${error instanceof Error ? error.message : 'no answer'}): ` +
          'sign in with a local account, or try again later',
        'sso_unavailable',
      );
    });
  }

  return {
    async authorizationUrl(params: {
      state: string;
      nonce: string;
      codeChallenge: string;
      redirectUri: string;
      /** `login`: the provider asks who signs in even with a session of its own (a test sign-in). */
      prompt?: string;
    }): Promise<string> {
      const { document } = await metadata();
      const url = new URL(document.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: config.clientId,
        redirect_uri: params.redirectUri,
        scope: config.scopes.join(' '),
        state: params.state,
        nonce: params.nonce,
        code_challenge: params.codeChallenge,
        code_challenge_method: 'S256',
        ...(params.prompt ? { prompt: params.prompt } : {}),
      }).toString();
      return url.toString();
    },

    /** The provider's logout page (RP-initiated logout), where it offers one. */
    async endSessionUrl(postLogoutRedirectUri: string): Promise<string | null> {
      const { document } = await metadata();
      if (!isUrl(document.end_session_endpoint)) return null;
      const url = new URL(document.end_session_endpoint);
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('post_logout_redirect_uri', postLogoutRedirectUri);
      return url.toString();
    },

    /** Trades the code for tokens at the token endpoint (client_secret_basic); the ID token. */
    async exchange(code: string, codeVerifier: string, redirectUri: string): Promise<string> {
      const { document } = await metadata();
      const basic = Buffer.from(
        `${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`,
      ).toString('base64');
      let response: Response;
      try {
        response = await fetch(document.token_endpoint, {
          method: 'POST',
          headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
            code_verifier: codeVerifier,
          }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
          redirect: 'error',
        });
      } catch {
        throw new Unavailable('The identity provider did not answer the code exchange', 'sso_unavailable');
      }
      const answer = (await response.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown };
      if (!response.ok || typeof answer.id_token !== 'string') {
        // the provider's error code says what went wrong (e.g. invalid_grant: a code used twice)
        const reason = typeof answer.error === 'string' ? answer.error.slice(0, 60) : `status ${response.status}`;
        throw new SsoRefused(`The identity provider refused the sign-in (${reason})`);
      }
      return answer.id_token;
    },

    /** The ID token's claims once signature, issuer, audience, expiry and nonce are right. */
    async verifyIdToken(idToken: string, nonce: string): Promise<IdTokenClaims> {
      const { keys } = await metadata();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(idToken, keys, {
          issuer: config.issuer,
          audience: config.clientId,
          algorithms: ASYMMETRIC,
          clockTolerance: CLOCK_TOLERANCE_S,
          requiredClaims: ['sub', 'exp', 'iat'],
        }));
      } catch (error) {
        throw new SsoRefused(`The ID token was refused: ${describe(error)}`, 'sso_token_refused');
      }
      // with several audiences the token must have been issued to us (OpenID Connect Core 3.1.3.7)
      if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload['azp'] !== config.clientId) {
        throw new SsoRefused('The ID token was refused: it was issued to another client', 'sso_token_refused');
      }
      if (typeof payload['nonce'] !== 'string' || payload['nonce'] !== nonce) {
        throw new SsoRefused('The ID token was refused: its nonce is not this sign-in’s', 'sso_token_refused');
      }
      return payload as IdTokenClaims;
    },
  };
}

/** Why jose refused a token, in words without the token's content. */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'it comes from another issuer';
    if (error.claim === 'aud') return 'it was issued to another client';
    return `its ${error.claim} claim is wrong`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'it is signed with a key the provider does not publish';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'its signing algorithm is not accepted';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (error instanceof errors.JWKSTimeout) return "the provider's keys could not be fetched";
  return 'it is malformed';
}

export type OidcProvider = ReturnType<typeof createOidcProvider>;
