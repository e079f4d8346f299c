import { Alert } from './alerts-api';

/** An open, unacknowledged warning on web-01 of customer 10, for specs. */
export function alertBody(overrides: Partial<Alert> = {}): Alert {
  return {
    id: 1,
    ruleKey: 'cpu.high',
    ruleKind: 'metric',
    severity: 'WARNING',
    systemId: 5,
    systemName: 'web-01',
    customerId: 10,
    customerName: 'Acme',
    customerTimeZone: 'UTC',
    instance: '',
    value: 91.5,
    message: 'CPU used is 91.5 % (above 85 %)',
    state: 'open',
    acknowledged: false,
    acknowledgedAt: null,
    acknowledgedBy: null,
    ackNote: null,
    ackUntil: null,
    startedAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    resolvedAt: null,
    incidentId: null,
    flapping: false,
    ...overrides,
  };
}
