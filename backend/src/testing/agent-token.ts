/** An agent's bearer token as the agent signs it (HS256 over the shared webhook secret), or a broken variant. */
import { SignJWT } from 'jose';

export interface AgentTokenOptions {
  secret: string;
  ak?: string;
  /** The signing time; the wall clock when absent. */
  now?: Date;
  iatOffsetS?: number;
  lifetimeS?: number;
  alg?: string;
  omit?: ('exp' | 'iat' | 'sub')[];
}

export function signAgentToken(sub: string, options: AgentTokenOptions): Promise<string> {
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000) + (options.iatOffsetS ?? 0);
  const claims: Record<string, unknown> = { sub, iat, exp: iat + (options.lifetimeS ?? 300) };
  if (options.ak) claims['ak'] = options.ak;
  for (const name of options.omit ?? []) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256' })
    .sign(new TextEncoder().encode(options.secret));
}
