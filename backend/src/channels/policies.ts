/**
 * Routing policies (issue 13): one global, and one per customer that wants its own. An OPERATOR reads
 * the global one and reads and edits those of customers granted to it; only an ADMIN edits the global.
 * A policy may name global channels and, for a customer's policy, that customer's own.
 */
import type { Bus } from '../bus/bus.js';
import { publishChange, reachOfCustomer } from '../bus/changes.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import { Forbidden, Invalid, NotFound } from '../lib/errors.js';
import type { ChannelsRepo, PolicyRow } from './repo.js';
import type { PolicyInput } from './schema.js';

const EMPTY = { routes: [], repeatMinutes: null, escalateAfterMinutes: null, escalateChannelIds: [] };

function policyView(row: PolicyRow | undefined, customer: { id: number | null; name: string | null }, custom: boolean) {
  return {
    customerId: customer.id,
    customerName: customer.name,
    custom,
    routes: row?.routes ?? EMPTY.routes,
    repeatMinutes: row?.repeatMinutes ?? null,
    escalateAfterMinutes: row?.escalateAfterMinutes ?? null,
    escalateChannelIds: row?.escalateChannelIds ?? EMPTY.escalateChannelIds,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}
export type PolicyView = ReturnType<typeof policyView>;

export function createPoliciesService({ repo, bus }: { repo: ChannelsRepo; bus: Bus }) {
  /** The customer's name, when the account may see it. */
  async function visibleCustomer(principal: Principal, customerId: number): Promise<string> {
    const name = canSeeCustomer(principal, customerId) ? await repo.customerName(customerId) : null;
    if (name === null) throw new NotFound('No such customer');
    return name;
  }

  /** Every channel id must exist and be usable by the policy: global, or the policy's customer's. */
  async function checkChannels(customerId: number | null, policy: PolicyInput): Promise<void> {
    const named = [
      ...policy.routes.flatMap((route, index) =>
        route.channelIds.map((id) => ({ id, field: `routes.${index}.channelIds` })),
      ),
      ...policy.escalateChannelIds.map((id) => ({ id, field: 'escalateChannelIds' })),
    ];
    const found = new Map((await repo.findMany([...new Set(named.map((n) => n.id))])).map((c) => [c.id, c.customerId]));
    for (const { id, field } of named) {
      const owner = found.get(id);
      if (owner === undefined || (owner !== null && owner !== customerId))
        throw new Invalid(`${field}: no such channel ${id}`, { field });
    }
    if (policy.escalateAfterMinutes !== null && policy.escalateChannelIds.length === 0)
      throw new Invalid('escalateChannelIds: name at least one channel to escalate to', {
        field: 'escalateChannelIds',
      });
  }

  const changed = (customerId: number | null) =>
    publishChange(bus, { topic: 'policies', ids: [customerId ?? 0], reach: reachOfCustomer(customerId) });

  return {
    async list(principal: Principal): Promise<PolicyView[]> {
      return (await repo.listPolicies(visibleTo(principal))).map((row) =>
        policyView(row, { id: row.customerId, name: row.customerName }, row.customerId !== null),
      );
    },

    async getGlobal(): Promise<PolicyView> {
      return policyView(await repo.findPolicy(null), { id: null, name: null }, false);
    },

    async saveGlobal(principal: Principal, policy: PolicyInput): Promise<PolicyView> {
      if (principal.role !== 'ADMIN') throw new Forbidden('Only an admin may change the global policy');
      await checkChannels(null, policy);
      await repo.savePolicy(null, policy);
      await changed(null);
      return this.getGlobal();
    },

    /** A customer's own policy, or (custom: false) the global routes it follows. */
    async getForCustomer(principal: Principal, customerId: number): Promise<PolicyView> {
      const name = await visibleCustomer(principal, customerId);
      const own = await repo.findPolicy(customerId);
      const row = own ?? (await repo.findPolicy(null));
      return policyView(row, { id: customerId, name }, own !== undefined);
    },

    async saveForCustomer(principal: Principal, customerId: number, policy: PolicyInput): Promise<PolicyView> {
      await visibleCustomer(principal, customerId);
      if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not change this customer');
      await checkChannels(customerId, policy);
      await repo.savePolicy(customerId, policy);
      await changed(customerId);
      return this.getForCustomer(principal, customerId);
    },

    async removeForCustomer(principal: Principal, customerId: number): Promise<void> {
      await visibleCustomer(principal, customerId);
      if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not change this customer');
      if (await repo.deletePolicy(customerId)) await changed(customerId);
    },
  };
}

export type PoliciesService = ReturnType<typeof createPoliciesService>;
