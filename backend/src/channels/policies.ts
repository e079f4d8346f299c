/**
 * Routing policies: one global, and one per customer that wants its own. An OPERATOR reads
 * the global one and reads and edits those of customers granted to it; only an ADMIN edits the global.
 * A policy may name global channels and, for a customer's policy, that customer's own.
 */
import type { Bus } from '../bus/bus.js';
import { publishChange, reachOfCustomer } from '../bus/changes.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
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

/** What the audit log keeps of a policy. */
const policyFacts = (row: PolicyRow | undefined) =>
  row
    ? {
        routes: row.routes,
        repeatMinutes: row.repeatMinutes,
        escalateAfterMinutes: row.escalateAfterMinutes,
        escalateChannelIds: row.escalateChannelIds,
      }
    : null;

export function createPoliciesService({ repo, bus, audit }: { repo: ChannelsRepo; bus: Bus; audit: AuditTrail }) {
  /** Saves (or with null, deletes) the policy of `customerId` (null: global) and its audit row, in one transaction. */
  async function store(actor: AuditActor, customerId: number | null, policy: PolicyInput | null): Promise<boolean> {
    return repo.transaction(async (trx) => {
      const before = await repo.findPolicy(customerId, trx);
      if (policy === null && !before) return false;
      if (policy) await repo.savePolicy(customerId, policy, trx);
      else if (customerId !== null) await repo.deletePolicy(customerId, trx);
      const after = policy ? await repo.findPolicy(customerId, trx) : undefined;
      await audit.record(trx, actor, {
        action: policy ? 'policy.save' : 'policy.delete',
        targetType: 'policy',
        targetId: customerId ?? 'global',
        customerId,
        before: policyFacts(before),
        after: policyFacts(after),
      });
      return true;
    });
  }

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

    async saveGlobal(actor: AuditActor, principal: Principal, policy: PolicyInput): Promise<PolicyView> {
      if (principal.role !== 'ADMIN') throw new Forbidden('Only an admin may change the global policy');
      await checkChannels(null, policy);
      await store(actor, null, policy);
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

    async saveForCustomer(
      actor: AuditActor,
      principal: Principal,
      customerId: number,
      policy: PolicyInput,
    ): Promise<PolicyView> {
      await visibleCustomer(principal, customerId);
      if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not change this customer');
      await checkChannels(customerId, policy);
      await store(actor, customerId, policy);
      await changed(customerId);
      return this.getForCustomer(principal, customerId);
    },

    async removeForCustomer(actor: AuditActor, principal: Principal, customerId: number): Promise<void> {
      await visibleCustomer(principal, customerId);
      if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not change this customer');
      if (await store(actor, customerId, null)) await changed(customerId);
    },
  };
}

export type PoliciesService = ReturnType<typeof createPoliciesService>;
