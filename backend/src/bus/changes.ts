/**
 * "What changed", for the consoles that show it (docs/architecture.md "Live channel"). A service that
 * changes rules, maintenance windows, customers and clusters, users or agent settings publishes one
 * ChangeEvent on the bus; the live hub forwards `{topic, ids}` on its `changes` topic to the accounts
 * that `reach` names, and each console data service reloads only on the topics it shows.
 */
import { canSeeCustomer, type Principal } from '../lib/access.js';
import type { Bus } from './bus.js';

export const CHANGES_TOPIC = 'changes';

export type ChangeTopic =
  'rules' | 'maintenance' | 'customers' | 'users' | 'agent-settings' | 'channels' | 'policies' | 'incidents';
export const CHANGE_TOPICS: readonly ChangeTopic[] = [
  'rules',
  'maintenance',
  'customers',
  'users',
  'agent-settings',
  'channels',
  'policies',
  'incidents',
];

/** Who may hear of a change. */
export type Reach =
  /** the accounts that see this customer */
  | { customerId: number }
  /** every signed-in account (a global rule, the default agent settings) */
  | { everyone: true }
  /** ADMINs, and the user `userId` (a change to their own account) */
  | { admins: true; userId?: number };

export interface ChangeEvent {
  topic: ChangeTopic;
  /** Ids of what changed: rules, windows, customers (a cluster's change names its customer), users, settings. */
  ids: number[];
  reach: Reach;
}

/** Never throws (as Bus.publish): a lost event only delays a console until its fallback reload. */
export function publishChange(bus: Bus, event: ChangeEvent): Promise<boolean> {
  return bus.publish(CHANGES_TOPIC, event);
}

/** The reach of something that belongs to a customer, or to everyone when it belongs to none. */
export const reachOfCustomer = (customerId: number | null): Reach =>
  customerId === null ? { everyone: true } : { customerId };

/** A bus event read back: a ChangeEvent, or null when it is not one (logged by the caller). */
export function parseChangeEvent(event: unknown): ChangeEvent | null {
  if (typeof event !== 'object' || event === null) return null;
  const { topic, ids, reach } = event as Partial<ChangeEvent>;
  if (!CHANGE_TOPICS.includes(topic as ChangeTopic)) return null;
  if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id))) return null;
  if (typeof reach !== 'object' || reach === null) return null;
  const ok =
    ('customerId' in reach && Number.isSafeInteger(reach.customerId)) ||
    ('everyone' in reach && reach.everyone === true) ||
    ('admins' in reach && reach.admins === true);
  return ok ? { topic: topic as ChangeTopic, ids, reach: reach as Reach } : null;
}

/** Whether the account `principal` may hear of something with this reach. */
export function reaches(principal: Principal, reach: Reach): boolean {
  if ('customerId' in reach) return canSeeCustomer(principal, reach.customerId);
  if ('everyone' in reach) return true;
  return principal.role === 'ADMIN' || principal.userId === reach.userId;
}
