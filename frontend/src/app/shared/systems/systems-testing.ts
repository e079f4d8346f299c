import { HttpTestingController } from '@angular/common/http/testing';

import { ALERTS_URL } from '@console/shared/alerts/alerts-api';
import { SystemDetail, SystemsPage, SystemSummary, systemUrl } from './systems-api';

/**
 * Answers the reads of the charts and the alert history of system `id` (a check's are its system's)
 * with nothing: no series, no alert. Their own specs are in shared/charts and features/alerts.
 */
export function answerNoChartsNorAlerts(http: HttpTestingController, id: number): void {
  http.expectOne(`${systemUrl(id)}/series`).flush([]);
  http.expectOne((r) => r.url === ALERTS_URL && r.params.get('system') === String(id)).flush([]);
}

/** A system as GET /api/systems lists it, for specs: online at Acme, cluster "prod", no open alerts. */
export function systemBody(overrides: Partial<SystemSummary> = {}): SystemSummary {
  return {
    id: 1,
    name: 'web-01',
    hostname: 'web-01.acme.internal',
    status: 'ONLINE',
    customer: { id: 10, name: 'Acme' },
    cluster: { id: 100, name: 'prod' },
    lastSeenAt: new Date().toISOString(),
    agentVersion: '2.28.1',
    os: 'Ubuntu 24.04',
    openAlerts: { critical: 0, warning: 0, info: 0 },
    usage: { cpu: null, memory: null, disk: null, diskMount: null },
    ...overrides,
  };
}

/** GET /api/systems/:id for specs. */
export function systemDetailBody(overrides: Partial<SystemDetail> = {}): SystemDetail {
  return {
    ...systemBody(),
    kind: 'agent',
    kernel: '6.8.0-45',
    arch: 'x86_64',
    cores: 8,
    offlineAlerts: true,
    updateFailedVersion: null,
    ...overrides,
  };
}

/** GET /api/systems/page for specs: `items`, counted as the server counts them unless `total` says more. */
export function pageBody(items: SystemSummary[], nextCursor: string | null = null, total = items.length): SystemsPage {
  const customers = new Map<number, number>();
  const counts: SystemsPage['counts'] = { PENDING: 0, ONLINE: 0, WARNING: 0, CRITICAL: 0, OFFLINE: 0, STANDBY: 0 };
  for (const item of items) {
    customers.set(item.customer.id, (customers.get(item.customer.id) ?? 0) + 1);
    counts[item.status] += 1;
  }
  return {
    items,
    nextCursor,
    total,
    counts,
    customers: [...customers].map(([id, count]) => ({ id, count })),
  };
}
