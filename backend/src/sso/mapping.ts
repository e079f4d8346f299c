/**
 * Group → role and customers: the rights a sign-in gets from the groups the provider lists. The
 * highest role of the matched groups wins; customer grants add up. No match is a refusal that names
 * the groups that would let the person in.
 */
import type { Role } from '../lib/access.js';
import type { GroupMapping } from './repo.js';

const RANK: Record<Role, number> = { VIEWER: 1, OPERATOR: 2, ADMIN: 3 };

export type Rights = { role: Role; customerIds: number[]; groups: string[] } | { missing: string };

export function rightsFromGroups(groups: string[], mappings: GroupMapping[]): Rights {
  const held = new Set(groups);
  const matched = mappings.filter((mapping) => held.has(mapping.group));
  if (matched.length === 0) {
    if (mappings.length === 0) {
      return { missing: 'No group is mapped to an Argus role yet: an administrator must map your group first' };
    }
    const names = mappings.map((mapping) => `"${mapping.group}"`).join(', ');
    return {
      missing:
        mappings.length === 1
          ? `You are not in the group ${names}, which Argus needs: ask an administrator to add you`
          : `You are in none of the groups Argus maps (${names}): ask an administrator to add you to one`,
    };
  }
  const role = matched.reduce<Role>((best, m) => (RANK[m.role] > RANK[best] ? m.role : best), 'VIEWER');
  const customerIds = [...new Set(matched.flatMap((m) => m.customerIds))].sort((a, b) => a - b);
  return { role, customerIds, groups: matched.map((m) => m.group) };
}
