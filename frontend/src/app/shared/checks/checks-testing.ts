import type { CheckCreate, HttpSettings } from '@contracts/checks';
import { Check, CheckResult } from './checks-api';

/** A result of one run for specs: up, HTTP 200 in 48 ms, unless told otherwise. */
export function checkResultBody(overrides: Partial<CheckResult> = {}): CheckResult {
  return {
    at: '2026-11-28T10:00:00.000Z',
    up: true,
    reason: null,
    responseMs: 48,
    status: 200,
    keywordMatched: null,
    certDaysLeft: null,
    certValid: null,
    packetLossPct: null,
    slow: false,
    ...overrides,
  };
}

/** An HTTP check's settings without headers for specs, each field as the check dialog sends it, unless told otherwise. */
export function httpSettingsBody(
  overrides: Partial<Omit<HttpSettings, 'headers'>> = {},
): Omit<HttpSettings, 'headers'> & { headers: never[] } {
  return {
    type: 'http',
    url: 'https://shop.example.com/',
    method: 'GET',
    expectedStatuses: '200-299',
    keywordIsRegex: false,
    keywordAbsent: false,
    followRedirects: true,
    verifyTls: true,
    headers: [],
    ...overrides,
  };
}

/** A check for specs: an HTTP check of customer 10, UP, unless told otherwise; the server's own location
 * sees what the check's state and last result say unless `results` is given. */
export function checkBody(overrides: Partial<Check> = {}): Check {
  const check: Omit<Check, 'results'> = {
    id: 7,
    customerId: 10,
    clusterId: null,
    name: 'Shop front',
    type: 'http',
    settings: httpSettingsBody(),
    intervalSeconds: 60,
    timeoutSeconds: 10,
    retries: 1,
    retryIntervalSeconds: 20,
    maxResponseMs: null,
    locations: ['argus'],
    quorum: null,
    effectiveQuorum: 1,
    enabled: true,
    state: 'UP',
    stateSince: '2026-11-28T09:00:00.000Z',
    failures: 0,
    lastResult: checkResultBody(),
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
  const state = check.state === 'PAUSED' ? 'PENDING' : check.state;
  const server = { location: 'argus', name: 'Argus', state, stateSince: check.stateSince, stale: false };
  return {
    ...check,
    results: overrides.results ?? [{ ...server, failures: check.failures, lastResult: check.lastResult }],
  };
}

/** The body that creates `check`: its fields a user writes, as the check dialog sends them. */
export function checkCreateBody(check: Check = checkBody()): Omit<CheckCreate, 'locations' | 'quorum'> {
  const { customerId, name, clusterId, settings, enabled, maxResponseMs } = check;
  const { intervalSeconds, timeoutSeconds, retries, retryIntervalSeconds } = check;
  return {
    customerId,
    name,
    clusterId,
    settings: settings as CheckCreate['settings'],
    intervalSeconds,
    timeoutSeconds,
    retries,
    retryIntervalSeconds,
    maxResponseMs,
    enabled,
  };
}
