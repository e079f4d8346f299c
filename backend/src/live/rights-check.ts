/**
 * Re-reads an open connection's rights (contracts.md "Live channel data"): at
 * every ping and on every `rights` bus event. A session or token that stopped
 * working (signed out, revoked, expired, account disabled or deleted) → 4401;
 * a changed role or grant → 4000 (the client reconnects and gets what it may
 * now see). A database that does not answer changes nothing.
 */
import type { Principal } from '../lib/access.js';

export const CLOSE_RIGHTS_CHANGED = 4000;
export const CLOSE_SIGNED_OUT = 4401;
export const CLOSE_GOING_AWAY = 1001;

export interface CredentialChecks {
  sessionIsLive(sessionId: string): Promise<boolean>;
  tokenIsUsable(tokenId: number): Promise<boolean>;
  principalFor(
    userId: number,
    via: Principal['via'],
    ids: { sessionId: string | null; tokenId: number | null },
  ): Promise<Principal | null>;
}

export type Verdict = 'ok' | typeof CLOSE_RIGHTS_CHANGED | typeof CLOSE_SIGNED_OUT;

function sameRights(a: Principal, b: Principal): boolean {
  if (a.role !== b.role || a.customerIds.size !== b.customerIds.size) return false;
  for (const id of a.customerIds) if (!b.customerIds.has(id)) return false;
  return true;
}

/** Checks many principals at once, asking the database once per credential and once per account. */
export async function checkPrincipals(
  checks: CredentialChecks,
  principals: readonly Principal[],
): Promise<Map<Principal, Verdict | null>> {
  const credential = new Map<string, Promise<boolean>>();
  const current = new Map<number, Promise<Principal | null>>();
  const verdicts = new Map<Principal, Verdict | null>();
  await Promise.all(
    principals.map(async (principal) => {
      const key = principal.via === 'session' ? `s:${principal.sessionId}` : `t:${principal.tokenId}`;
      let valid = credential.get(key);
      if (!valid) {
        valid =
          principal.via === 'session'
            ? checks.sessionIsLive(principal.sessionId ?? '')
            : checks.tokenIsUsable(principal.tokenId ?? 0);
        credential.set(key, valid);
      }
      let now = current.get(principal.userId);
      if (!now) {
        now = checks.principalFor(principal.userId, principal.via, { sessionId: null, tokenId: null });
        current.set(principal.userId, now);
      }
      try {
        const [isValid, fresh] = await Promise.all([valid, now]);
        if (!isValid || !fresh) verdicts.set(principal, CLOSE_SIGNED_OUT);
        else verdicts.set(principal, sameRights(principal, fresh) ? 'ok' : CLOSE_RIGHTS_CHANGED);
      } catch {
        verdicts.set(principal, null); // could not tell: keep the connection
      }
    }),
  );
  return verdicts;
}
