/** What the ingest service answers and sees of an agent, and what it hands the group-commit writer and gets back. */
import type { AgentClaims } from './jwt.js';
import type { AgentSystemRow, SystemStatus } from './repo.js';
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

/** What the settings and update seams see of a system. */
export interface IngestSystem {
  id: number;
  customerId: number;
  clusterId: number | null;
  /** The version the agent reports now (else the stored one). */
  agentVersion: string | null;
  arch: string | null;
}

export interface UpdateOffer {
  version: string;
  url: string;
  sha256: string;
}

export interface IngestAnswer {
  accepted: number;
  duplicates: number;
  skipped: number;
  agentKey?: string;
  settings: Record<string, unknown>;
  settings_rev: string;
  /** The network checks the agent runs (absent when none). */
  checks?: unknown[];
  update: UpdateOffer | null;
}

/** The agent's system, as the checks seams see it. */
export interface ReportingSystem {
  id: number;
  customerId: number;
}

/** An agent whose token verified; `system` is null for an unknown `sub`. */
export interface VerifiedAgent {
  claims: AgentClaims;
  system: AgentSystemRow | null;
  /** Unknown, or known without an agent key (new, or re-enrolled): needs a valid enrollment key. */
  needsEnrollment: boolean;
}
