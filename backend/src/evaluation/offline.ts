/**
 * Offline detection (docs/rules.md "Offline after two minutes"). A reporting system not seen for 2
 * minutes becomes OFFLINE, or STANDBY when its offline alerts are switched off
 * (repo.markSilentSystems does that in one UPDATE, so a report arriving at the
 * same moment wins). Here: which offline-kind rules (`system.offline`) raise or
 * resolve. The rule's `for` is "not seen for" (at least the 2-minute threshold),
 * so an override can give a flaky site more time. Reporting again (ingest sets
 * the system back to ONLINE) resolves the alert on the next run.
 */
import type { RuleBook } from './rule-book.js';
import type { Suppression } from './suppression.js';
import { identity, type AlertRule, type NewAlert, type OpenAlert, type SystemInfo } from './types.js';

export const OFFLINE_AFTER_MS = 2 * 60_000;

export interface OfflineInput {
  now: Date;
  systems: ReadonlyMap<number, SystemInfo>;
  rules: RuleBook<AlertRule>;
  /** Open alerts of offline-kind rules. */
  open: readonly OpenAlert[];
  suppressed: Suppression;
}

export interface OfflineDecision {
  raise: NewAlert[];
  resolve: { alert: OpenAlert; reason: string }[];
}

export function decideOffline({ now, systems, rules, open, suppressed }: OfflineInput): OfflineDecision {
  const decision: OfflineDecision = { raise: [], resolve: [] };
  const openIds = new Set(open.map((a) => identity(a.ruleKey, a.systemId, a.instance)));
  for (const system of systems.values()) {
    if (system.status !== 'OFFLINE' || !system.lastSeenAt) continue;
    const silentMs = now.getTime() - system.lastSeenAt.getTime();
    for (const rule of rules.effectiveFor(system)) {
      if (rule.kind !== 'offline' || openIds.has(identity(rule.key, system.id, ''))) continue;
      if (silentMs < Math.max(OFFLINE_AFTER_MS, rule.forSeconds * 1000) || suppressed(system)) continue;
      decision.raise.push({
        ruleKey: rule.key,
        ruleKind: 'offline',
        systemId: system.id,
        customerId: system.customerId,
        instance: '',
        severity: rule.severity,
        value: Math.round(silentMs / 1000),
        // the instant stays exact here: the console shows it in the customer's zone, with how long ago
        message: `No report since ${system.lastSeenAt.toISOString()}`,
      });
    }
  }
  for (const alert of open) {
    const system = systems.get(alert.systemId);
    if (!system) continue;
    if (system.status !== 'OFFLINE')
      decision.resolve.push({ alert, reason: system.status === 'STANDBY' ? 'offline alerts off' : 'reporting again' });
    else if (rules.ruleFor(system, alert.ruleKey)?.kind !== 'offline')
      decision.resolve.push({ alert, reason: 'rule no longer applies' });
  }
  return decision;
}
