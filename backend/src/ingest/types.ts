/** What the ingest service hands the group-commit writer, and what it gets back. */
import type { SystemStatus } from './repo.js';
import type { SeriesSet } from './series-sets.js';

export interface EventToStore {
  type: string;
  severity: string;
  message: string;
}

export interface ReportToStore {
  /** Report ts in epoch milliseconds. */
  ms: number;
  /** The report's series, in its order (series-sets.ts). */
  set: SeriesSet;
  /** Its samples' values, in the set's order. */
  values: number[];
  events: EventToStore[];
}

/** What the agent told about its host; null leaves a column as it is. */
export interface SystemTouch {
  seenAt: Date;
  version: string | null;
  hostname: string | null;
  os: string | null;
  kernel: string | null;
  arch: string | null;
  cores: number | null;
}

export interface WriteRequest {
  systemId: number;
  reports: ReportToStore[];
  touch: SystemTouch;
  /** Older reports of an outage's replay (admission.ts): queued behind live reports (group-commit.ts). */
  replay?: boolean;
}

export interface WriteOutcome {
  /** Per report: whether it was stored now (false: already stored, a duplicate). */
  stored: boolean[];
  statusChange: { from: SystemStatus; to: SystemStatus } | null;
}
