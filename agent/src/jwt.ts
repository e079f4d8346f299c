/** The agent's token (docs/protocol.md "Agent token (JWT)"): HS256 over WEBHOOK_SECRET, 5 minutes, `ak` once enrolled. */
import { createHmac } from 'node:crypto';

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');
const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
export const TOKEN_LIFE_SECONDS = 300;

export function agentToken(secret: string, claims: { sub: string; ak?: string | null }, nowMs = Date.now()): string {
  const iat = Math.floor(nowMs / 1000);
  const payload = base64url(
    JSON.stringify({ sub: claims.sub, iat, exp: iat + TOKEN_LIFE_SECONDS, ...(claims.ak ? { ak: claims.ak } : {}) }),
  );
  const signature = createHmac('sha256', secret).update(`${HEADER}.${payload}`).digest('base64url');
  return `${HEADER}.${payload}.${signature}`;
}
