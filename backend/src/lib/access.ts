/**
 * Access: who is asking, as read from the database on EVERY request: a withdrawn grant or a
 * changed role applies to the very next request, for cookies and tokens alike.
 */
export type Role = 'ADMIN' | 'OPERATOR' | 'VIEWER';

export interface Principal {
  userId: number;
  role: Role;
  email: string;
  /** How this request authenticated: tokens never manage tokens and never open the console. */
  via: 'session' | 'token';
  /** Hash of the session token (cookie requests), for CSRF binding and sign-out. */
  sessionId: string | null;
  tokenId: number | null;
  /** Customers granted to an OPERATOR or VIEWER; unused for ADMIN (sees everything). */
  customerIds: ReadonlySet<number>;
}

export function canSeeCustomer(principal: Principal, customerId: number): boolean {
  return principal.role === 'ADMIN' || principal.customerIds.has(customerId);
}

export function canWriteCustomer(principal: Principal, customerId: number): boolean {
  return principal.role === 'ADMIN' || (principal.role === 'OPERATOR' && principal.customerIds.has(customerId));
}

/** The customers a caller may see: null for everything (ADMIN), else the ids of its grants. */
export type Visible = ReadonlySet<number> | null;

export const visibleTo = (principal: Principal): Visible => (principal.role === 'ADMIN' ? null : principal.customerIds);
