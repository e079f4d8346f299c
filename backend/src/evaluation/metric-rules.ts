/**
 * Metric rules with Prometheus-like `for` (docs/rules.md "Metric rules"): each run compares the
 * newest sample (not older than 5 minutes); a condition that holds is pending;
 * it raises once pending for `for`; an open alert resolves on the first run where
 * the condition no longer holds, or once its metric has not arrived for 10
 * minutes (between 5 and 10 minutes nothing is decided). Pure: the run's
 * service reads and writes, this decides.
 */
import { conditionHolds, instanceMatches, type Condition } from '../rules/condition.js';
import { metricAlertText } from '../../../contracts/metric-catalogue.js';
import type { RuleBook } from './rule-book.js';
import type { Suppression } from './suppression.js';
import {
  identity,
  type AlertRule,
  type LatestSample,
  type NewAlert,
  type OpenAlert,
  type PendingCondition,
  type SystemInfo,
} from './types.js';

export const FRESH_MS = 5 * 60_000;
export const STALE_RESOLVE_MS = 10 * 60_000;

export interface MetricInput {
  now: Date;
  systems: ReadonlyMap<number, SystemInfo>;
  rules: RuleBook<AlertRule>;
  /** Fresh samples on which some enabled rule's condition may hold (a superset is fine). */
  candidates: readonly LatestSample[];
  pending: ReadonlyMap<string, PendingCondition>;
  /** Open alerts of metric rules. */
  open: readonly OpenAlert[];
  /** The newest sample of each open alert's series, by seriesKey(). */
  openSeries: ReadonlyMap<string, LatestSample>;
  suppressed: Suppression;
}

export interface MetricDecision {
  raise: NewAlert[];
  resolve: { alert: OpenAlert; reason: string }[];
  /** New pending conditions (since = now). */
  startPending: PendingCondition[];
  /** Pending conditions that ended (raised, or no longer holding). */
  endPending: PendingCondition[];
}

export const seriesKey = (systemId: number, name: string, instance: string) =>
  `${systemId}\u0000${name}\u0000${instance}`;

function asCondition(rule: AlertRule): Condition {
  return { operator: rule.operator ?? '>', threshold: rule.threshold ?? 0, absolute: rule.absolute };
}

/** The alert's text in words from the metric catalogue ("Filesystem /srv is read-only"); the rule is named beside it. */
export function metricAlertMessage(rule: AlertRule, instance: string, value: number): string {
  const { operator, threshold, absolute } = asCondition(rule);
  return metricAlertText({ metric: rule.metric ?? '', instance, value, operator, threshold, absolute });
}

/** The enabled metric rules of `system` that read metric `name`, whose glob takes `instance`, and hold on `value`. */
export function firingRules(rules: readonly AlertRule[], sample: LatestSample): AlertRule[] {
  return rules.filter(
    (rule) =>
      rule.kind === 'metric' &&
      rule.metric === sample.name &&
      instanceMatches(rule.instanceGlob, sample.instance) &&
      conditionHolds(asCondition(rule), sample.value),
  );
}

export function decideMetricRules(input: MetricInput): MetricDecision {
  const { now, systems, rules, pending, suppressed } = input;
  const t = now.getTime();
  const holding = new Map<string, { rule: AlertRule; sample: LatestSample; system: SystemInfo }>();
  for (const sample of input.candidates) {
    if (t - sample.time.getTime() > FRESH_MS) continue;
    const system = systems.get(sample.systemId);
    if (!system) continue;
    for (const rule of firingRules(rules.effectiveFor(system), sample)) {
      holding.set(identity(rule.key, system.id, sample.instance), { rule, sample, system });
    }
  }

  const openIds = new Set(input.open.map((a) => identity(a.ruleKey, a.systemId, a.instance)));
  const decision: MetricDecision = { raise: [], resolve: [], startPending: [], endPending: [] };
  for (const [id, { rule, sample, system }] of holding) {
    const known = pending.get(id);
    if (openIds.has(id)) {
      if (known) decision.endPending.push(known);
      continue;
    }
    const since = known?.since ?? now;
    const due = t - since.getTime() >= rule.forSeconds * 1000;
    if (due && !suppressed(system)) {
      decision.raise.push({
        ruleKey: rule.key,
        ruleKind: 'metric',
        systemId: system.id,
        customerId: system.customerId,
        instance: sample.instance,
        severity: rule.severity,
        value: sample.value,
        message: metricAlertMessage(rule, sample.instance, sample.value),
      });
      if (known) decision.endPending.push(known);
    } else if (!known) {
      // suppressed conditions keep counting: one still true when the window ends raises then
      decision.startPending.push({ ruleKey: rule.key, systemId: system.id, instance: sample.instance, since: now });
    }
  }
  for (const [id, condition] of pending) if (!holding.has(id)) decision.endPending.push(condition);

  for (const alert of input.open) {
    if (holding.has(identity(alert.ruleKey, alert.systemId, alert.instance))) continue;
    const system = systems.get(alert.systemId);
    if (!system) continue;
    const rule = rules.ruleFor(system, alert.ruleKey);
    if (!rule || rule.kind !== 'metric' || !rule.metric) {
      decision.resolve.push({ alert, reason: 'rule no longer applies' });
      continue;
    }
    if (!instanceMatches(rule.instanceGlob, alert.instance)) {
      decision.resolve.push({ alert, reason: 'instance no longer matched' });
      continue;
    }
    const sample = input.openSeries.get(seriesKey(system.id, rule.metric, alert.instance));
    const age = sample ? t - sample.time.getTime() : Infinity;
    if (age > STALE_RESOLVE_MS) decision.resolve.push({ alert, reason: 'metric stopped arriving' });
    else if (age <= FRESH_MS && sample && !conditionHolds(asCondition(rule), sample.value))
      decision.resolve.push({ alert, reason: 'condition cleared' });
    // 5–10 minutes old, or holding after all: nothing decided this run
  }
  return decision;
}
