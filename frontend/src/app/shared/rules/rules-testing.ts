import { HttpTestingController } from '@angular/common/http/testing';

import { CLUSTERS_URL, CUSTOMERS_URL } from '@console/shared/customers/customers-api';
import { nextRequest } from '@console/testing';
import { AlertRule, EventRule, Preview } from './rules-api';
import { SYSTEMS_URL } from './scope-targets';

/** The default "CPU high" metric rule, global, for specs. */
export function alertRuleBody(overrides: Partial<AlertRule> = {}): AlertRule {
  return {
    id: 1,
    key: 'cpu.high',
    name: 'CPU high',
    kind: 'metric',
    severity: 'WARNING',
    metric: 'cpu.usage_pct',
    instanceGlob: null,
    operator: '>',
    threshold: 85,
    absolute: false,
    forSeconds: 600,
    horizonSeconds: null,
    enabled: true,
    countsAsDowntime: false,
    scope: null,
    createdAt: '',
    updatedAt: '',
    ...overrides,
  };
}

/** The default reboot event rule, global, for specs. */
export function eventRuleBody(overrides: Partial<EventRule> = {}): EventRule {
  return {
    id: 9,
    key: 'system.rebooted',
    name: 'System rebooted',
    severity: 'INFO',
    eventType: 'system.reboot',
    messagePattern: null,
    minEventSeverity: null,
    derived: 'reboot',
    holdSeconds: 1800,
    enabled: true,
    scope: null,
    createdAt: '',
    updatedAt: '',
    ...overrides,
  };
}

/** A preview in which the rule would fire on web-01 of Acme (customer 10) at 97, for specs. */
export function previewBody(overrides: Partial<Preview> = {}): Preview {
  const system = { systemId: 5, systemName: 'web-01', customerId: 10, customerName: 'Acme', instance: '' };
  return {
    evaluatedAt: '2026-11-22T12:00:00.000Z',
    note: 'The condition on the newest sample only: "for" is not considered.',
    total: 1,
    systems: [{ ...system, value: 97, sampledAt: '', projectedAt: null }],
    ...overrides,
  };
}

/** Answers the scope fields' three requests: customers Acme (10) and Globex (20), no clusters, no systems. */
export async function flushScopeTargets(http: HttpTestingController): Promise<void> {
  (await nextRequest(http, { method: 'GET', url: CUSTOMERS_URL })).flush([
    { id: 10, name: 'Acme', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
    { id: 20, name: 'Globex', active: true, notes: '', timeZone: 'UTC', createdAt: '' },
  ]);
  (await nextRequest(http, { method: 'GET', url: CLUSTERS_URL })).flush([]);
  (await nextRequest(http, { method: 'GET', url: SYSTEMS_URL })).flush([]);
}
