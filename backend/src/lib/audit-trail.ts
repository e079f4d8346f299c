/**
 * What every feature needs to write the audit log without knowing the audit
 * feature: who acted, what they did, and the one call that stores it. The audit feature
 * (backend/src/audit/) implements `AuditTrail`; the composition root hands it to each service.
 */
import type { Knex } from 'knex';
import type { Principal } from './access.js';

export interface AuditActor {
  /** A signed-in account (session), an API token, or the scheduler and ops scripts. */
  type: 'user' | 'token' | 'system';
  /** The user id (session) or the token id (bearer); null for `system` and failed sign-ins. */
  id: number | null;
  /** The account's e-mail at the time (kept when the account is deleted), or the attempted identifier. */
  name: string | null;
  /** The client address (http/client-ip.ts), null for `system`. */
  address: string | null;
}

export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: null, name: 'system', address: null };

export interface AuditEntry {
  /** Dotted, e.g. `customer.create`, `cluster.enrollment_key.rotate`, `auth.sign_in_failed`. */
  action: string;
  targetType: string;
  targetId?: number | string | null;
  /** The customer the change belongs to, if any (what OPERATOR scoping of the log keys on). */
  customerId?: number | null;
  /** The state before (updates and deletes); with `after`, only the changed fields are stored. */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

export interface AuditTrail {
  /** Stores one row in `trx`, the transaction of the change itself (a failed change leaves none). */
  record(trx: Knex, actor: AuditActor, entry: AuditEntry): Promise<void>;
  /** A row that is the only write of its request (a refused sign-in), in a transaction of its own. */
  recordAlone(actor: AuditActor, entry: AuditEntry): Promise<void>;
}

/** The actor of a request: the session's account, or the token (named by its account's e-mail). */
export function actorOf(principal: Principal, address: string | null): AuditActor {
  return principal.via === 'token' && principal.tokenId !== null
    ? { type: 'token', id: principal.tokenId, name: principal.email, address }
    : { type: 'user', id: principal.userId, name: principal.email, address };
}
