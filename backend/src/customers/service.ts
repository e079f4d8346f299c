/**
 * Customers and clusters (docs/api.md "Fleet"): ADMIN manages
 * customers; an OPERATOR manages the clusters of customers granted to it; a
 * VIEWER reads. A customer the account may not see is a 404, never a 403.
 */
import type { Bus } from '../bus/bus.js';
import { publishChange } from '../bus/changes.js';
import type { AuditActor, AuditTrail } from '../lib/audit-trail.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import { Conflict, Forbidden, NotFound } from '../lib/errors.js';
import { randomToken } from '../lib/crypto.js';
import type { ClusterRow, CustomerRow, CustomersRepo } from './repo.js';
import { installCommand } from '../../../contracts/agents.js';

export interface CustomerView {
  id: number;
  name: string;
  active: boolean;
  notes: string;
  timeZone: string;
  createdAt: string;
}

export interface ClusterView {
  id: number;
  name: string;
  customerId: number;
  /** Only for accounts that may write at the cluster's customer (it enrolls agents). */
  enrollmentKey?: string;
  /** The one-line installer, built from PUBLIC_URL (the address agents reach), with the key. */
  installCommand?: string;
}

export interface CustomerInput {
  name: string;
  notes: string;
  active: boolean;
  timeZone: string;
}

// ≥ 128 bits (docs/protocol.md "Enrolment and the agent key"): 24 random bytes, 32 base64url characters
const newEnrollmentKey = () => randomToken(24);

const customerView = (row: CustomerRow): CustomerView => ({ ...row, createdAt: row.createdAt.toISOString() });

/** What the audit log keeps of a customer and a cluster (the key is sealed there). */
const customerFacts = ({ name, active, notes, timeZone }: CustomerRow) => ({ name, active, notes, timeZone });
const clusterFacts = ({ name, customerId, enrollmentKey }: ClusterRow) => ({ name, customerId, enrollmentKey });

export function createCustomersService({
  repo,
  bus,
  publicUrl,
  audit,
}: {
  repo: CustomersRepo;
  bus: Bus;
  publicUrl: string;
  audit: AuditTrail;
}) {
  function clusterView(row: ClusterRow, principal: Principal): ClusterView {
    const view: ClusterView = { id: row.id, name: row.name, customerId: row.customerId };
    if (canWriteCustomer(principal, row.customerId)) {
      view.enrollmentKey = row.enrollmentKey;
      view.installCommand = installCommand(publicUrl, row.enrollmentKey);
    }
    return view;
  }

  async function visibleCustomer(principal: Principal, id: number): Promise<CustomerRow> {
    const customer = await repo.findCustomer(id);
    if (!customer || !canSeeCustomer(principal, id)) throw new NotFound('No such customer');
    return customer;
  }

  async function writableCluster(principal: Principal, id: number): Promise<ClusterRow> {
    const cluster = await repo.findCluster(id);
    if (!cluster || !canSeeCustomer(principal, cluster.customerId)) throw new NotFound('No such cluster');
    if (!canWriteCustomer(principal, cluster.customerId)) throw new Forbidden('You may not change this customer');
    return cluster;
  }

  async function changeCluster(
    actor: AuditActor,
    cluster: ClusterRow,
    action: string,
    changes: { name?: string; enrollmentKey?: string },
  ): Promise<ClusterRow> {
    const updated = await repo.transaction(async (trx) => {
      await repo.updateCluster(cluster.id, changes, trx);
      const row = (await repo.findCluster(cluster.id, trx)) as ClusterRow;
      await audit.record(trx, actor, {
        action,
        targetType: 'cluster',
        targetId: cluster.id,
        customerId: cluster.customerId,
        before: clusterFacts(cluster),
        after: clusterFacts(row),
      });
      return row;
    });
    await changed(cluster.customerId);
    return updated;
  }

  // the systems list shows customer and cluster names: its snapshots are recomputed too
  const changed = async (customerId: number) => {
    await bus.publish('systems', { reason: 'fleet' });
    await publishChange(bus, { topic: 'customers', ids: [customerId], reach: { customerId } });
  };

  return {
    visibleCustomer,

    async listCustomers(principal: Principal): Promise<CustomerView[]> {
      return (await repo.listCustomers(visibleTo(principal))).map(customerView);
    },

    async createCustomer(actor: AuditActor, input: CustomerInput): Promise<CustomerView> {
      if (await repo.nameTaken(input.name, null)) throw new Conflict('A customer with this name exists');
      const created = await repo.transaction(async (trx) => {
        const id = await repo.insertCustomer(input, trx);
        const row = (await repo.findCustomer(id, trx)) as CustomerRow;
        await audit.record(trx, actor, {
          action: 'customer.create',
          targetType: 'customer',
          targetId: id,
          customerId: id,
          after: customerFacts(row),
        });
        return row;
      });
      await changed(created.id);
      return customerView(created);
    },

    async updateCustomer(
      actor: AuditActor,
      principal: Principal,
      id: number,
      input: Partial<CustomerInput>,
    ): Promise<CustomerView> {
      const before = await visibleCustomer(principal, id);
      if (input.name !== undefined && (await repo.nameTaken(input.name, id))) {
        throw new Conflict('A customer with this name exists');
      }
      const updated = await repo.transaction(async (trx) => {
        await repo.updateCustomer(id, input, trx);
        const row = (await repo.findCustomer(id, trx)) as CustomerRow;
        await audit.record(trx, actor, {
          action: 'customer.update',
          targetType: 'customer',
          targetId: id,
          customerId: id,
          before: customerFacts(before),
          after: customerFacts(row),
        });
        return row;
      });
      await changed(id);
      return customerView(updated);
    },

    async deleteCustomer(actor: AuditActor, principal: Principal, id: number): Promise<void> {
      const before = await visibleCustomer(principal, id);
      await repo.transaction(async (trx) => {
        await repo.deleteCustomer(id, trx);
        await audit.record(trx, actor, {
          action: 'customer.delete',
          targetType: 'customer',
          targetId: id,
          customerId: id,
          before: customerFacts(before),
        });
      });
      await changed(id);
    },

    async listClusters(principal: Principal): Promise<ClusterView[]> {
      return (await repo.listClusters(visibleTo(principal))).map((row) => clusterView(row, principal));
    },

    async createCluster(
      actor: AuditActor,
      principal: Principal,
      customerId: number,
      name: string,
    ): Promise<ClusterView> {
      await visibleCustomer(principal, customerId);
      if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not change this customer');
      if (await repo.clusterNameTaken(customerId, name, null))
        throw new Conflict('This customer has a cluster of this name');
      const created = await repo.transaction(async (trx) => {
        const id = await repo.insertCluster(customerId, name, newEnrollmentKey(), trx);
        const row = (await repo.findCluster(id, trx)) as ClusterRow;
        await audit.record(trx, actor, {
          action: 'cluster.create',
          targetType: 'cluster',
          targetId: id,
          customerId,
          after: clusterFacts(row),
        });
        return row;
      });
      await changed(customerId);
      return clusterView(created, principal);
    },

    async renameCluster(actor: AuditActor, principal: Principal, id: number, name: string): Promise<ClusterView> {
      const cluster = await writableCluster(principal, id);
      if (await repo.clusterNameTaken(cluster.customerId, name, id)) {
        throw new Conflict('This customer has a cluster of this name');
      }
      const updated = await changeCluster(actor, cluster, 'cluster.update', { name });
      return clusterView(updated, principal);
    },

    /** A new enrollment key: the old one stops enrolling agents at once (enrolled agents keep working). */
    async rotateEnrollmentKey(actor: AuditActor, principal: Principal, id: number): Promise<ClusterView> {
      const cluster = await writableCluster(principal, id);
      const updated = await changeCluster(actor, cluster, 'cluster.enrollment_key.rotate', {
        enrollmentKey: newEnrollmentKey(),
      });
      return clusterView(updated, principal);
    },

    async deleteCluster(actor: AuditActor, principal: Principal, id: number): Promise<void> {
      const cluster = await writableCluster(principal, id);
      await repo.transaction(async (trx) => {
        await repo.deleteCluster(id, trx);
        await audit.record(trx, actor, {
          action: 'cluster.delete',
          targetType: 'cluster',
          targetId: id,
          customerId: cluster.customerId,
          before: clusterFacts(cluster),
        });
      });
      await changed(cluster.customerId);
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
