/**
 * Customers and clusters (contracts.md "Tenancy and rights"): ADMIN manages
 * customers; an OPERATOR manages the clusters of customers granted to it; a
 * VIEWER reads. A customer the account may not see is a 404, never a 403.
 */
import type { Bus } from '../bus/bus.js';
import { publishChange } from '../bus/changes.js';
import { canSeeCustomer, canWriteCustomer, visibleTo, type Principal } from '../lib/access.js';
import { Conflict, Forbidden, NotFound } from '../lib/errors.js';
import { randomToken } from '../lib/crypto.js';
import type { ClusterRow, CustomerRow, CustomersRepo } from './repo.js';

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

// ≥ 128 bits (contracts.md "Agent protocol"): 24 random bytes, 32 base64url characters
const newEnrollmentKey = () => randomToken(24);

const customerView = (row: CustomerRow): CustomerView => ({ ...row, createdAt: row.createdAt.toISOString() });

export function createCustomersService({ repo, bus, publicUrl }: { repo: CustomersRepo; bus: Bus; publicUrl: string }) {
  function clusterView(row: ClusterRow, principal: Principal): ClusterView {
    const view: ClusterView = { id: row.id, name: row.name, customerId: row.customerId };
    if (canWriteCustomer(principal, row.customerId)) {
      view.enrollmentKey = row.enrollmentKey;
      // the key is base64url: nothing in it needs quoting in a URL or in single quotes
      view.installCommand = `curl -fsSL '${publicUrl}/api/agent/install.sh?key=${row.enrollmentKey}' | sudo sh`;
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

    async createCustomer(input: CustomerInput): Promise<CustomerView> {
      if (await repo.nameTaken(input.name, null)) throw new Conflict('A customer with this name exists');
      const id = await repo.insertCustomer(input);
      await changed(id);
      return customerView((await repo.findCustomer(id)) as CustomerRow);
    },

    async updateCustomer(principal: Principal, id: number, input: Partial<CustomerInput>): Promise<CustomerView> {
      await visibleCustomer(principal, id);
      if (input.name !== undefined && (await repo.nameTaken(input.name, id))) {
        throw new Conflict('A customer with this name exists');
      }
      await repo.updateCustomer(id, input);
      await changed(id);
      return customerView((await repo.findCustomer(id)) as CustomerRow);
    },

    async deleteCustomer(principal: Principal, id: number): Promise<void> {
      await visibleCustomer(principal, id);
      await repo.deleteCustomer(id);
      await changed(id);
    },

    async listClusters(principal: Principal): Promise<ClusterView[]> {
      return (await repo.listClusters(visibleTo(principal))).map((row) => clusterView(row, principal));
    },

    async createCluster(principal: Principal, customerId: number, name: string): Promise<ClusterView> {
      await visibleCustomer(principal, customerId);
      if (!canWriteCustomer(principal, customerId)) throw new Forbidden('You may not change this customer');
      if (await repo.clusterNameTaken(customerId, name, null))
        throw new Conflict('This customer has a cluster of this name');
      const id = await repo.insertCluster(customerId, name, newEnrollmentKey());
      await changed(customerId);
      return clusterView((await repo.findCluster(id)) as ClusterRow, principal);
    },

    async renameCluster(principal: Principal, id: number, name: string): Promise<ClusterView> {
      const cluster = await writableCluster(principal, id);
      if (await repo.clusterNameTaken(cluster.customerId, name, id)) {
        throw new Conflict('This customer has a cluster of this name');
      }
      await repo.updateCluster(id, { name });
      await changed(cluster.customerId);
      return clusterView((await repo.findCluster(id)) as ClusterRow, principal);
    },

    /** A new enrollment key: the old one stops enrolling agents at once (enrolled agents keep working). */
    async rotateEnrollmentKey(principal: Principal, id: number): Promise<ClusterView> {
      const cluster = await writableCluster(principal, id);
      await repo.updateCluster(id, { enrollmentKey: newEnrollmentKey() });
      await changed(cluster.customerId);
      return clusterView((await repo.findCluster(id)) as ClusterRow, principal);
    },

    async deleteCluster(principal: Principal, id: number): Promise<void> {
      const cluster = await writableCluster(principal, id);
      await repo.deleteCluster(id);
      await changed(cluster.customerId);
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
