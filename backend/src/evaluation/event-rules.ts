/**
 * Event rules (docs/rules.md "Event rules"): an agent event of the rule's type — optionally
 * with a message pattern and a minimum event severity — or a derived event
 * (`reboot`: uptime.s went down) raises an alert that stays open for the rule's
 * hold time after the newest matching event, then resolves by itself.
 *
 * Message pattern: case-insensitive, matched anywhere in the message, with `*`
 * (any run of characters) and `?` (one character); a pattern without wildcards
 * is a plain substring ("nginx" matches "nginx.service failed").
 *
 * An event whose hold ended before this run (and older than 5 minutes, e.g. an
 * agent's buffer delivered after an outage) is over: it raises nothing. During
 * suppression nothing is raised, and nothing "catches up" afterwards.
 */
import { durationText } from '../../../contracts/metric-catalogue.js';
import { wildcardMatches } from '../rules/condition.js';
import type { RuleBook } from './rule-book.js';
import type { Suppression } from './suppression.js';
import {
  identity,
  SEVERITY_RANK,
  type AgentEvent,
  type EventRule,
  type NewAlert,
  type OpenAlert,
  type Reboot,
  type SystemInfo,
} from './types.js';

const LATE_MS = 5 * 60_000;

export function messageMatches(pattern: string | null | undefined, message: string): boolean {
  if (!pattern) return true;
  // anywhere in the message: the pattern between two implicit `*`, case-insensitive
  return wildcardMatches(`*${pattern.toLowerCase()}*`, message.toLowerCase());
}

export function eventMatches(rule: EventRule, event: Pick<AgentEvent, 'type' | 'severity' | 'message'>): boolean {
  return (
    rule.eventType !== null &&
    rule.eventType === event.type &&
    messageMatches(rule.messagePattern, event.message) &&
    (rule.minEventSeverity === null || SEVERITY_RANK[event.severity] >= SEVERITY_RANK[rule.minEventSeverity])
  );
}

export interface EventInput {
  now: Date;
  systems: ReadonlyMap<number, SystemInfo>;
  rules: RuleBook<EventRule>;
  events: readonly AgentEvent[];
  reboots: readonly Reboot[];
  /** Open alerts of event rules, with their hold. */
  open: readonly OpenAlert[];
  suppressed: Suppression;
}

export interface EventDecision {
  raise: (NewAlert & { holdUntil: Date })[];
  extend: { alert: OpenAlert; holdUntil: Date }[];
  resolve: { alert: OpenAlert; reason: string }[];
}

interface Occurrence {
  system: SystemInfo;
  rule: EventRule;
  at: Date;
  value: number | null;
  message: string;
}

export function decideEvents(input: EventInput): EventDecision {
  const { now, systems, rules, suppressed } = input;
  const t = now.getTime();
  const occurrences: Occurrence[] = [];
  for (const event of input.events) {
    const system = systems.get(event.systemId);
    if (!system) continue;
    for (const rule of rules.effectiveFor(system)) {
      if (!eventMatches(rule, event)) continue;
      const message = event.message ? `${rule.name}: ${event.message}` : rule.name;
      occurrences.push({ system, rule, at: event.time, value: null, message });
    }
  }
  for (const reboot of input.reboots) {
    const system = systems.get(reboot.systemId);
    if (!system) continue;
    for (const rule of rules.effectiveFor(system)) {
      if (rule.derived !== 'reboot') continue;
      // the moment of the reboot, by the new uptime
      const at = new Date(reboot.sampleTime.getTime() - reboot.uptime * 1000);
      const message = `Rebooted after ${durationText(reboot.previousUptime)} up (up again for ${durationText(reboot.uptime)})`;
      occurrences.push({ system, rule, at, value: reboot.uptime, message });
    }
  }

  const open = new Map(input.open.map((a) => [identity(a.ruleKey, a.systemId, a.instance), a]));
  const raised = new Map<string, NewAlert & { holdUntil: Date }>();
  const extended = new Map<string, { alert: OpenAlert; holdUntil: Date }>();
  for (const { system, rule, at, value, message } of occurrences) {
    const holdUntil = new Date(at.getTime() + rule.holdSeconds * 1000);
    if (at.getTime() + Math.max(rule.holdSeconds * 1000, LATE_MS) < t) continue; // over already
    const id = identity(rule.key, system.id, '');
    const alert = open.get(id);
    if (alert) {
      const current = extended.get(id)?.holdUntil ?? alert.holdUntil ?? new Date(0);
      if (holdUntil > current) extended.set(id, { alert, holdUntil });
      continue;
    }
    const earlier = raised.get(id);
    if (earlier) {
      if (holdUntil > earlier.holdUntil) earlier.holdUntil = holdUntil;
      continue;
    }
    if (suppressed(system)) continue;
    raised.set(id, {
      ruleKey: rule.key,
      ruleKind: 'event',
      systemId: system.id,
      customerId: system.customerId,
      instance: '',
      severity: rule.severity,
      value,
      message,
      holdUntil,
    });
  }

  const resolve: EventDecision['resolve'] = [];
  for (const [id, alert] of open) {
    if (extended.has(id)) continue;
    const system = systems.get(alert.systemId);
    if (!system) continue;
    if (!rules.ruleFor(system, alert.ruleKey)) resolve.push({ alert, reason: 'rule no longer applies' });
    else if (!alert.holdUntil || alert.holdUntil.getTime() <= t) resolve.push({ alert, reason: 'hold time over' });
  }
  return { raise: [...raised.values()], extend: [...extended.values()], resolve };
}
