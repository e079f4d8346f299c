/**
 * Suppression (docs/rules.md "Suppression: maintenance windows and inactive customers"): while a maintenance window covers a system (scoped
 * to the system, its cluster or its customer) or its customer is inactive, no
 * alert is raised and no notification is sent for it. Each window is checked
 * once per run, in its customer's time zone.
 */
import { windowCovers, type WindowSchedule } from '../maintenance/schedule.js';
import type { ScopeType, SystemInfo } from './types.js';

export interface CustomerInfo {
  id: number;
  active: boolean;
  timeZone: string;
}

export interface MaintenanceWindow {
  customerId: number;
  scopeType: ScopeType;
  scopeId: number;
  schedule: WindowSchedule;
}

export type Suppression = (system: Pick<SystemInfo, 'id' | 'customerId' | 'clusterId'>) => boolean;

export function buildSuppression(
  customers: readonly CustomerInfo[],
  windows: readonly MaintenanceWindow[],
  now: Date,
): Suppression {
  const zones = new Map(customers.map((c) => [c.id, c.timeZone]));
  const inactive = new Set(customers.filter((c) => !c.active).map((c) => c.id));
  const covered = { customer: new Set<number>(), cluster: new Set<number>(), system: new Set<number>() };
  for (const window of windows) {
    let covers: boolean;
    try {
      covers = windowCovers(window.schedule, now, zones.get(window.customerId) ?? 'UTC');
    } catch {
      // an unknown zone name (edited by SQL) must not stop the run: read the window in UTC
      covers = windowCovers(window.schedule, now, 'UTC');
    }
    if (covers) covered[window.scopeType].add(window.scopeId);
  }
  return (system) =>
    inactive.has(system.customerId) ||
    covered.customer.has(system.customerId) ||
    (system.clusterId !== null && covered.cluster.has(system.clusterId)) ||
    covered.system.has(system.id);
}
