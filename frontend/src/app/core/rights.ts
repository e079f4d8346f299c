import { User } from './auth';

/**
 * Whether the account may change things at a customer (docs/api.md "Fleet"): an ADMIN
 * everywhere, an OPERATOR at the customers granted to it, a VIEWER nowhere. The server decides; this
 * only keeps the console from offering what it would refuse.
 */
export function mayWriteAt(user: User | null, customerId: number): boolean {
  if (!user) return false;
  return user.role === 'ADMIN' || (user.role === 'OPERATOR' && user.customerIds.includes(customerId));
}
