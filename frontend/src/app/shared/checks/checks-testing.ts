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

/** A check for specs: an HTTP check of customer 10, UP, unless told otherwise. */
export function checkBody(overrides: Partial<Check> = {}): Check {
  return {
    id: 7,
    customerId: 10,
    clusterId: null,
    name: 'Shop front',
    type: 'http',
    settings: {
      type: 'http',
      url: 'https://shop.example.com/',
      method: 'GET',
      expectedStatuses: '200-299',
      keywordIsRegex: false,
      keywordAbsent: false,
      followRedirects: true,
      verifyTls: true,
      headers: [],
    },
    intervalSeconds: 60,
    timeoutSeconds: 10,
    retries: 1,
    retryIntervalSeconds: 20,
    maxResponseMs: null,
    locations: ['argus'],
    enabled: true,
    state: 'UP',
    stateSince: '2026-11-28T09:00:00.000Z',
    failures: 0,
    lastResult: checkResultBody(),
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
}
