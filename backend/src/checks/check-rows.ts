/**
 * A check's row and each location's, as the checks' SQL reads them (repo.ts, results-repo.ts).
 */
import type { CheckResult } from '../../../contracts/checks.js';

export interface CheckRow {
  id: number;
  customerId: number;
  clusterId: number | null;
  name: string;
  type: 'http' | 'tcp' | 'dns' | 'ping';
  settings: Record<string, unknown>;
  sealedHeaders: string | null;
  intervalS: number;
  timeoutS: number;
  retries: number;
  retryIntervalS: number;
  maxResponseMs: number | null;
  locations: string[];
  quorum: number | null;
  enabled: boolean;
  state: 'PENDING' | 'UP' | 'DOWN' | 'DEGRADED' | 'PAUSED';
  stateSince: Date | null;
  failures: number;
  lastResult: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What one location (the server, or an agent) sees of a check: `check_locations` (migration 0029). */
export interface LocationRow {
  checkId: number;
  location: string;
  state: 'PENDING' | 'UP' | 'DOWN' | 'DEGRADED';
  stateSince: Date | null;
  failures: number;
  lastResult: CheckResult | null;
  /** When its newest result was measured. */
  at: Date;
}

/** One run (or a heartbeat of the state) to store: its series and the check's state after it. */
export interface StoredRun {
  id: number;
  time: Date;
  names: string[];
  instances: string[];
  vals: number[];
  /** The check's state after it; a heartbeat keeps the last result (null). */
  state?: {
    state: CheckRow['state'];
    stateSince: Date | null;
    failures: number;
    lastResult: CheckResult | Record<string, unknown> | null;
  };
}

export function mapRow(r: Record<string, unknown>): CheckRow {
  return {
    id: r['id'] as number,
    customerId: r['customer_id'] as number,
    clusterId: (r['cluster_id'] as number | null) ?? null,
    name: r['name'] as string,
    type: r['type'] as CheckRow['type'],
    settings: r['settings'] as Record<string, unknown>,
    sealedHeaders: (r['sealed_headers'] as string | null) ?? null,
    intervalS: r['interval_s'] as number,
    timeoutS: r['timeout_s'] as number,
    retries: r['retries'] as number,
    retryIntervalS: r['retry_interval_s'] as number,
    maxResponseMs: (r['max_response_ms'] as number | null) ?? null,
    locations: r['locations'] as string[],
    quorum: (r['quorum'] as number | null) ?? null,
    enabled: r['enabled'] as boolean,
    state: r['state'] as CheckRow['state'],
    stateSince: (r['state_since'] as Date | null) ?? null,
    failures: r['failures'] as number,
    lastResult: (r['last_result'] as Record<string, unknown> | null) ?? null,
    createdAt: r['created_at'] as Date,
    updatedAt: r['updated_at'] as Date,
  };
}

export const mapLocation = (r: Record<string, unknown>): LocationRow => ({
  checkId: r['check_id'] as number,
  location: r['location'] as string,
  state: r['state'] as LocationRow['state'],
  stateSince: (r['state_since'] as Date | null) ?? null,
  failures: r['failures'] as number,
  lastResult: (r['last_result'] as CheckResult | null) ?? null,
  at: r['at'] as Date,
});
