/** What one evaluation run reads and decides (plain data; SQL lives in repo.ts). */
import type { Alert, Severity } from '../alerts/alert-json.js';
import type { Operator } from '../../../contracts/rules.js';

export type { Severity };
export type ScopeType = 'customer' | 'cluster' | 'system';
export interface Scope {
  type: ScopeType;
  id: number;
}

/** What every rule kind shares: a stable key, an optional scope and the enabled flag. */
export interface ScopedRule {
  key: string;
  name: string;
  severity: Severity;
  enabled: boolean;
  scope: Scope | null;
}

export interface AlertRule extends ScopedRule {
  kind: 'metric' | 'offline' | 'forecast';
  metric: string | null;
  instanceGlob: string | null;
  operator: Operator | null;
  threshold: number | null;
  absolute: boolean;
  forSeconds: number;
  /** Forecast rules: how far ahead the projected crossing may lie. */
  horizonSeconds: number | null;
}

export interface EventRule extends ScopedRule {
  eventType: string | null;
  messagePattern: string | null;
  minEventSeverity: Severity | null;
  derived: 'reboot' | null;
  holdSeconds: number;
}

export type SystemStatus = 'PENDING' | 'ONLINE' | 'WARNING' | 'CRITICAL' | 'OFFLINE' | 'STANDBY';
export const REPORTING: readonly SystemStatus[] = ['ONLINE', 'WARNING', 'CRITICAL'];

export interface SystemInfo {
  id: number;
  customerId: number;
  clusterId: number | null;
  status: SystemStatus;
  lastSeenAt: Date | null;
  offlineAlerts: boolean;
}

/** A newest sample from metric_latest. */
export interface LatestSample {
  systemId: number;
  name: string;
  instance: string;
  value: number;
  time: Date;
}

export type RuleKind = 'metric' | 'offline' | 'event' | 'forecast';

/** An open alert as the run reads it: the alert, its rule's kind, its hold and its flapping marks. */
export interface OpenAlert extends Alert {
  ruleKind: RuleKind;
  /** Event alerts: until when their hold keeps them open. */
  holdUntil: Date | null;
  /** Since when it flaps (null: it does not). */
  flappingSince: Date | null;
  /** A flapping alert: since when its condition has been clear (null: it is not). */
  clearSince: Date | null;
}

export interface PendingCondition {
  ruleKey: string;
  systemId: number;
  instance: string;
  since: Date;
}

export interface AgentEvent {
  id: number;
  systemId: number;
  time: Date;
  type: string;
  severity: Severity;
  message: string;
  receivedAt: Date;
}

/** `uptime.s` went down (or the boot time moved on): a derived reboot event. */
export interface Reboot {
  systemId: number;
  uptime: number;
  previousUptime: number;
  sampleTime: Date;
}

/** An alert the run decided to raise. */
export interface NewAlert {
  ruleKey: string;
  ruleKind: RuleKind;
  systemId: number;
  customerId: number;
  instance: string;
  severity: Severity;
  value: number | null;
  message: string;
  /** Event alerts: resolve at this time. */
  holdUntil?: Date;
}

export const SEVERITY_RANK: Record<Severity, number> = { INFO: 1, WARNING: 2, CRITICAL: 3 };

/** The identity of an alert and of a pending condition (rule key, system, instance). */
export function identity(ruleKey: string, systemId: number, instance: string): string {
  return `${ruleKey}\u0000${systemId}\u0000${instance}`;
}
