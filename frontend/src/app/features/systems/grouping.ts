import { byName } from '@console/shared/customers/customers-api';
import { SystemStatus, SystemSummary } from '@console/shared/systems/systems-api';

export interface ClusterGroup {
  /** null for the customer's systems without a cluster. */
  id: number | null;
  name: string;
  systems: SystemSummary[];
}

export interface CustomerGroup {
  id: number;
  name: string;
  clusters: ClusterGroup[];
  /** Systems of this customer, over all its clusters. */
  count: number;
}

export const NO_CLUSTER = 'No cluster';

/**
 * Customers by name, then their clusters by name with "No cluster" last, then systems by name
 * (numbers in names in numeric order: web-2 before web-10).
 */
export function groupSystems(systems: readonly SystemSummary[]): CustomerGroup[] {
  const customers = new Map<number, { name: string; clusters: Map<number | null, ClusterGroup> }>();
  for (const system of systems) {
    let customer = customers.get(system.customer.id);
    if (!customer) {
      customer = { name: system.customer.name, clusters: new Map() };
      customers.set(system.customer.id, customer);
    }
    const clusterId = system.cluster?.id ?? null;
    let cluster = customer.clusters.get(clusterId);
    if (!cluster) {
      cluster = { id: clusterId, name: system.cluster?.name ?? NO_CLUSTER, systems: [] };
      customer.clusters.set(clusterId, cluster);
    }
    cluster.systems.push(system);
  }
  return [...customers.entries()]
    .map(([id, customer]) => {
      const clusters = [...customer.clusters.values()].sort(
        (a, b) => Number(a.id === null) - Number(b.id === null) || byName(a, b),
      );
      for (const cluster of clusters) cluster.systems.sort(byName);
      const count = clusters.reduce((sum, cluster) => sum + cluster.systems.length, 0);
      return { id, name: customer.name, clusters, count };
    })
    .sort(byName);
}

/** The figures the list sorts by, fullest first, besides its customer and cluster grouping. */
export type Figure = 'cpu' | 'memory' | 'disk';

/** Highest figure first, systems without it last, then by name (a flat list: no headings). */
export function byFigure(systems: readonly SystemSummary[], figure: Figure): SystemSummary[] {
  const valueOf = (system: SystemSummary) => system.usage[figure] ?? -1;
  return [...systems].sort((a, b) => valueOf(b) - valueOf(a) || byName(a, b));
}

/** Systems already in their order, as lines without headings. */
export const systemLines = (systems: readonly SystemSummary[]): ListItem[] =>
  systems.map((system) => ({ kind: 'system', key: `s${system.id}`, system }));

export interface SystemFilter {
  /** Matched, case-insensitively, against name, hostname, customer and cluster. */
  text: string;
  /** null for every status. */
  status: SystemStatus | null;
}

export function matchesFilter(system: SystemSummary, filter: SystemFilter): boolean {
  if (filter.status !== null && system.status !== filter.status) return false;
  const text = filter.text.trim().toLowerCase();
  if (!text) return true;
  return [system.name, system.hostname, system.customer.name, system.cluster?.name ?? ''].some((field) =>
    field.toLowerCase().includes(text),
  );
}

const STATUSES: readonly SystemStatus[] = ['PENDING', 'ONLINE', 'WARNING', 'CRITICAL', 'OFFLINE', 'STANDBY'];

/** How many systems have each status, for the status filter's options. */
export function countByStatus(systems: readonly SystemSummary[]): Record<SystemStatus, number> {
  const counts = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<SystemStatus, number>;
  for (const system of systems) counts[system.status]++;
  return counts;
}

/** One line of the virtual-scrolled list: a customer's heading, a cluster's heading, or a system. */
export type ListItem =
  | { kind: 'customer'; key: string; id: number; name: string; count: number }
  | { kind: 'cluster'; key: string; id: number | null; name: string }
  | { kind: 'system'; key: string; system: SystemSummary };

/** The groups as one flat list in display order (the virtual scroll renders only what is on screen). */
export function flatten(groups: readonly CustomerGroup[]): ListItem[] {
  const items: ListItem[] = [];
  for (const customer of groups) {
    items.push({
      kind: 'customer',
      key: `c${customer.id}`,
      id: customer.id,
      name: customer.name,
      count: customer.count,
    });
    for (const cluster of customer.clusters) {
      items.push({ kind: 'cluster', key: `k${customer.id}:${cluster.id ?? '-'}`, id: cluster.id, name: cluster.name });
      for (const system of cluster.systems) items.push({ kind: 'system', key: `s${system.id}`, system });
    }
  }
  return items;
}

/**
 * Rows already in display order (the server's: customer, cluster with "No cluster" last, name) as one
 * flat list, with a heading wherever the customer or the cluster changes.
 */
export function flattenRows(rows: readonly SystemSummary[], countOf: (customerId: number) => number): ListItem[] {
  const items: ListItem[] = [];
  let customerId: number | null = null;
  let clusterKey: string | null = null;
  for (const system of rows) {
    if (system.customer.id !== customerId) {
      customerId = system.customer.id;
      clusterKey = null;
      const { id, name } = system.customer;
      items.push({ kind: 'customer', key: `c${id}`, id, name, count: countOf(id) });
    }
    const cluster = system.cluster;
    const key = `k${customerId}:${cluster?.id ?? '-'}`;
    if (key !== clusterKey) {
      clusterKey = key;
      items.push({ kind: 'cluster', key, id: cluster?.id ?? null, name: cluster?.name ?? NO_CLUSTER });
    }
    items.push({ kind: 'system', key: `s${system.id}`, system });
  }
  return items;
}
