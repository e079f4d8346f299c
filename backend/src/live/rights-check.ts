/**
 * Re-reads an open connection's rights (docs/protocol.md "Live channel"): at
 * every ping and on every `rights` bus event. A session or token that stopped
 * working (signed out, revoked, expired, account disabled or deleted) → 4401;
 * a changed role or grant → 4000 (the client reconnects and gets what it may
 * now see). A database that does not answer changes nothing.
 */
import type { Principal } from '../lib/access.js';
import { closeWith, type Connection } from './connection.js';
import type { RightsNow, RightsQuery } from './repo.js';

export const CLOSE_RIGHTS_CHANGED = 4000;
export const CLOSE_SIGNED_OUT = 4401;
export const CLOSE_GOING_AWAY = 1001;

/** The rights of many connections at once: one query for a whole ping round (docs/decisions.md "Live hub at 1,000 dashboards"). */
export interface CredentialChecks {
  rightsNow(query: RightsQuery): Promise<RightsNow>;
}

export type Verdict = 'ok' | typeof CLOSE_RIGHTS_CHANGED | typeof CLOSE_SIGNED_OUT;

function sameRights(a: Principal, b: { role: Principal['role']; customerIds: ReadonlySet<number> }): boolean {
  if (a.role !== b.role || a.customerIds.size !== b.customerIds.size) return false;
  for (const id of a.customerIds) if (!b.customerIds.has(id)) return false;
  return true;
}

/**
 * Checks many principals at once with ONE question to the database, whatever their number (1,000
 * dashboards used to cost ~3 queries each per ping). A database that does not answer changes nothing:
 * every verdict is null (keep the connection).
 */
export async function checkPrincipals(
  checks: CredentialChecks,
  principals: readonly Principal[],
): Promise<Map<Principal, Verdict | null>> {
  const verdicts = new Map<Principal, Verdict | null>();
  if (principals.length === 0) return verdicts;
  const sessionIds = new Set<string>();
  const tokenIds = new Set<number>();
  const userIds = new Set<number>();
  for (const principal of principals) {
    if (principal.via === 'session') sessionIds.add(principal.sessionId ?? '');
    else tokenIds.add(principal.tokenId ?? 0);
    userIds.add(principal.userId);
  }
  let now: RightsNow;
  try {
    now = await checks.rightsNow({ sessionIds: [...sessionIds], tokenIds: [...tokenIds], userIds: [...userIds] });
  } catch {
    for (const principal of principals) verdicts.set(principal, null); // could not tell: keep the connections
    return verdicts;
  }
  for (const principal of principals) {
    const valid =
      principal.via === 'session'
        ? now.liveSessions.has(principal.sessionId ?? '')
        : now.usableTokens.has(principal.tokenId ?? 0);
    const account = now.accounts.get(principal.userId);
    if (!valid || !account) verdicts.set(principal, CLOSE_SIGNED_OUT);
    else verdicts.set(principal, sameRights(principal, account) ? 'ok' : CLOSE_RIGHTS_CHANGED);
  }
  return verdicts;
}

/** Closes the connections whose credentials stopped working (4401) or whose rights changed (4000). */
export async function recheckConnections(checks: CredentialChecks, conns: readonly Connection[]): Promise<void> {
  const open = conns.filter((conn) => !conn.closing);
  if (open.length === 0) return;
  const verdicts = await checkPrincipals(
    checks,
    open.map((conn) => conn.principal),
  );
  for (const conn of open) {
    const verdict = verdicts.get(conn.principal);
    if (verdict === CLOSE_SIGNED_OUT) closeWith(conn, CLOSE_SIGNED_OUT, 'Signed out');
    else if (verdict === CLOSE_RIGHTS_CHANGED) closeWith(conn, CLOSE_RIGHTS_CHANGED, 'Rights changed');
  }
}
