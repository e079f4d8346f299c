/**
 * Agent JWT verification (docs/protocol.md "Agent token (JWT)"): HS256 with
 * WEBHOOK_SECRET only, `sub`, `iat` and `exp` required, `exp` in the future,
 * `iat` at most 300 s ahead, `exp − iat` at most 300 s. `kid`/`jku`/`jwk`
 * headers are ignored (the key is always the shared secret). The argus-agent
 * signs a fresh token a request, so most tokens are new: the usual shape is
 * checked at once with node:crypto (hs256.ts, a few µs), anything else by jose
 * (~100 µs). A verified token is still remembered until its `exp` in a bounded
 * cache keyed by the token itself (clients that reuse a token pay a map lookup;
 * only tokens whose signature verified get in, ≤ 4 KiB each).
 */
import { jwtVerify } from 'jose';
import type { Clock } from '../lib/clock.js';
import { sha256 } from '../lib/crypto.js';
import { NOT_PLAIN, verifyPlainHs256, type JwtPayload } from './hs256.js';

export interface AgentClaims {
  /** The agent's stable machine id. */
  sub: string;
  /** The system's agent key, once the agent has one. */
  ak: string | null;
  /** SHA-256 of `ak` (what systems.agent_key_hash holds), computed once per verified token. */
  akHash: string | null;
  iat: number;
  exp: number;
}

export interface AgentTokenVerifier {
  /** The claims of a valid token, or null (never throws for a bad token). */
  verify(token: string): Promise<AgentClaims | null>;
  /** Cached entries (tests). */
  cacheSize(): number;
}

export const MAX_TOKEN_LIFETIME_S = 300;
export const MAX_ISSUED_AHEAD_S = 300;
const MAX_TOKEN_LENGTH = 4096;
const MAX_SUB_LENGTH = 256;
const PRINTABLE = /^[^\p{Cc}\p{Cs}\p{Zl}\p{Zp}]+$/u;

export function createAgentTokenVerifier(options: {
  secret: string;
  clock: Clock;
  /** Verified tokens remembered (default 10,000); the oldest goes first. */
  cacheEntries?: number;
}): AgentTokenVerifier {
  const key = new TextEncoder().encode(options.secret);
  const maxEntries = options.cacheEntries ?? 10_000;
  const cache = new Map<string, AgentClaims>();
  // an agent's key stays the same over its fresh tokens: its hash is made once, not for each token
  let keyHashes = new Map<string, string>();
  function hashOfKey(ak: string): string {
    let hash = keyHashes.get(ak);
    if (hash === undefined) {
      hash = sha256(ak);
      if (keyHashes.size >= maxEntries) keyHashes = new Map();
      keyHashes.set(ak, hash);
    }
    return hash;
  }

  function timely(claims: AgentClaims, nowS: number): boolean {
    return claims.exp > nowS && claims.iat <= nowS + MAX_ISSUED_AHEAD_S;
  }

  /** The signature and times: the usual token checked at once (hs256.ts), anything else by jose. */
  async function verifiedPayload(token: string, nowS: number): Promise<JwtPayload | null> {
    const plain = verifyPlainHs256(token, key, nowS);
    if (plain !== NOT_PLAIN) return plain;
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        requiredClaims: ['exp', 'iat', 'sub'],
        currentDate: new Date(nowS * 1000),
      });
      return payload;
    } catch {
      return null;
    }
  }

  async function verifyUncached(token: string, nowS: number): Promise<AgentClaims | null> {
    try {
      const payload = await verifiedPayload(token, nowS);
      if (!payload) return null;
      const { sub, ak, iat, exp } = payload;
      if (typeof sub !== 'string' || sub.length > MAX_SUB_LENGTH || !PRINTABLE.test(sub)) return null;
      if (ak !== undefined && (typeof ak !== 'string' || ak.length > 256)) return null;
      if (typeof iat !== 'number' || typeof exp !== 'number') return null;
      if (exp - iat > MAX_TOKEN_LIFETIME_S) return null;
      const claims: AgentClaims = { sub, ak: ak ?? null, akHash: ak ? hashOfKey(ak) : null, iat, exp };
      return timely(claims, nowS) ? claims : null;
    } catch {
      return null;
    }
  }

  return {
    async verify(token) {
      if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
      const nowS = options.clock.now().getTime() / 1000;
      const cached = cache.get(token);
      if (cached) {
        if (timely(cached, nowS)) return cached;
        cache.delete(token);
        return null;
      }
      const claims = await verifyUncached(token, nowS);
      if (claims) {
        if (cache.size >= maxEntries) {
          const oldest = cache.keys().next();
          if (!oldest.done) cache.delete(oldest.value);
        }
        cache.set(token, claims);
      }
      return claims;
    },
    cacheSize: () => cache.size,
  };
}
