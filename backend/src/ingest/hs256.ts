/**
 * The agent's token in its usual shape checked at once with node:crypto: an HS256 compact JWT whose
 * header names nothing but `alg` (and `typ`, `kid`, which jose ignores here too). jose's verify runs
 * the HMAC as a WebCrypto job (a key import and a round trip through the thread pool a token, and
 * every agent signs a fresh token a request); this is a few microseconds on the calling thread.
 * Whatever is not that shape (`crit`, `b64`, another algorithm, characters or lengths base64url does
 * not use) is left to jose, so an unusual token gets exactly jose's answer; jwt.test.ts sets the two
 * side by side over many generated tokens.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The claims of a token whose signature and times checked out, as jose's jwtVerify gives them. */
export type JwtPayload = Record<string, unknown>;

/** Not the usual shape: ask jose. */
export const NOT_PLAIN = Symbol('not a plain HS256 token');

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const HEADER_KEYS: ReadonlySet<string> = new Set(['alg', 'typ', 'kid']);
const SIGNATURE_BYTES = 32;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** What the base64url alphabet decodes without doubt (length 4n+1 is no encoding; jose refuses it). */
function isBase64url(part: string | undefined): part is string {
  return part !== undefined && part.length % 4 !== 1 && BASE64URL.test(part);
}

/** A JSON object as jose accepts one (a plain object, decoded as strict UTF-8), or null. */
function jsonObject(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(strictUtf8.decode(Buffer.from(part, 'base64url')));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function isPlainHeader(header: Record<string, unknown> | null): boolean {
  if (header?.['alg'] !== 'HS256') return false;
  for (const key in header) if (!HEADER_KEYS.has(key)) return false;
  return true;
}

/**
 * The payload of a valid token, null for an invalid one, or NOT_PLAIN for jose to judge. Valid as
 * jose's jwtVerify with `algorithms: ['HS256']`, `requiredClaims: exp, iat, sub` and no tolerance:
 * the signature, a JSON object payload, the three claims present, `iat` a number, `nbf` (if any) not
 * after now, `exp` a number after now.
 */
export function verifyPlainHs256(token: string, key: Uint8Array, nowS: number): JwtPayload | null | typeof NOT_PLAIN {
  const [header, payload, signature, extra] = token.split('.');
  if (extra !== undefined || !isBase64url(header) || !isBase64url(payload) || !isBase64url(signature)) return NOT_PLAIN;
  if (!isPlainHeader(jsonObject(header))) return NOT_PLAIN;

  const given = Buffer.from(signature, 'base64url');
  const expected = createHmac('sha256', key).update(`${header}.${payload}`).digest();
  if (given.length !== SIGNATURE_BYTES || !timingSafeEqual(given, expected)) return null;

  const claims = jsonObject(payload);
  if (!claims) return null;
  if (!Object.hasOwn(claims, 'exp') || !Object.hasOwn(claims, 'iat') || !Object.hasOwn(claims, 'sub')) return null;
  const { iat, nbf, exp } = claims;
  if (iat !== undefined && typeof iat !== 'number') return null;
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > Math.floor(nowS))) return null;
  if (exp !== undefined && (typeof exp !== 'number' || exp <= Math.floor(nowS))) return null;
  return claims;
}
