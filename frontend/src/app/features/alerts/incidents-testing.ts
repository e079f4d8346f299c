import { Incident, IncidentAlert } from './incidents-api';

/** A member alert of an incident, for specs. */
export function incidentAlertBody(overrides: Partial<IncidentAlert> = {}): IncidentAlert {
  return { id: 1, systemId: 5, systemName: 'web-01', state: 'open', ...overrides };
}

/** An open incident "Site down: Berlin" of customer 10 with three offline systems, for specs. */
export function incidentBody(overrides: Partial<Incident> = {}): Incident {
  return {
    id: 3,
    title: 'Site down: Berlin',
    customerId: 10,
    customerName: 'Acme',
    clusterId: 4,
    clusterName: 'Berlin',
    state: 'open',
    startedAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    resolvedAt: null,
    alerts: [
      incidentAlertBody({ id: 11, systemId: 5, systemName: 'web-01' }),
      incidentAlertBody({ id: 12, systemId: 6, systemName: 'web-02' }),
      incidentAlertBody({ id: 13, systemId: 7, systemName: 'web-03' }),
    ],
    ...overrides,
  };
}
