/**
 * Forecast rules (docs/rules.md "Forecast rules"): "reaches THRESHOLD within HORIZON". Each series'
 * least-squares line over the window (the last 24 hours of the hourly rollup by default) is carried
 * from the window's end to now; where it crosses the threshold within the horizon the rule fires.
 * A long window ignores a cron job's burst or a fresh boot. No forecast without enough hours of
 * data (a share of the window), nor on a series that shrinks or stays flat. An open alert resolves
 * once the crossing lies beyond the horizon, or the line can no longer say. Pure: the run's
 * forecast step reads and writes, this decides.
 */
import { durationText, formatMetricValue, metricInfo } from '../../../contracts/metric-catalogue.js';
import { wallClock } from '../../../contracts/zoned-time.js';
import type { ForecastSettings } from '../../../contracts/settings.js';
import { instanceMatches } from '../rules/condition.js';
import type { ForecastSettingsService } from '../settings/forecast/service.js';
import { HOUR_MS, type FittedLine } from './forecast-repo.js';
import type { RuleBook } from './rule-book.js';
import type { Suppression } from './suppression.js';
import { identity, type AlertRule, type NewAlert, type OpenAlert, type SystemInfo } from './types.js';

/** Where the evaluation reads the forecast settings: the settings feature's service, injected. */
export type ForecastSettingsSource = Pick<ForecastSettingsService, 'get'>;

/** A change over the whole window below this share of the threshold is flat (at least 0.001 units). */
const FLAT_SHARE = 0.001;

export interface ForecastRule {
  metric: string | null;
  operator: AlertRule['operator'];
  threshold: number | null;
}

/** The fewest hours of data a line needs. */
export const minBuckets = (settings: ForecastSettings) =>
  Math.max(2, Math.ceil(settings.windowHours * settings.minShare));

/** 1 for a rule that rises to its threshold (>=), -1 for one that falls to it (<=). */
export const directionOf = (rule: Pick<ForecastRule, 'operator'>): 1 | -1 =>
  rule.operator === '<=' || rule.operator === '<' ? -1 : 1;

/**
 * When `line` reaches the rule's threshold (now when it is there already), or null when it cannot
 * say: too few hours, or a series that shrinks or stays flat (falling rules: rises or stays flat).
 */
export function projectedAt(rule: ForecastRule, line: FittedLine, now: Date, settings: ForecastSettings): Date | null {
  if (line.buckets < minBuckets(settings) || rule.threshold === null) return null;
  const direction = directionOf(rule);
  const slope = line.slopePerH * direction;
  const flat = FLAT_SHARE * Math.max(Math.abs(rule.threshold), 1);
  if (slope * settings.windowHours <= flat) return null;
  const hoursSince = (now.getTime() - line.through.getTime()) / HOUR_MS;
  const gap = (rule.threshold - (line.level + line.slopePerH * hoursSince)) * direction;
  return new Date(now.getTime() + (Math.max(0, gap) / slope) * HOUR_MS);
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** "Tue 14:00" on the clock of `timeZone`: to the hour a day or more ahead, else to ten minutes. */
export function aroundText(at: Date, now: Date, timeZone: string): string {
  const step = at.getTime() - now.getTime() >= 24 * HOUR_MS ? HOUR_MS : 10 * 60_000;
  const wall = new Date(wallClock(Math.round(at.getTime() / step) * step, timeZone));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${WEEKDAYS[wall.getUTCDay()]} ${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}`;
}

/** "Disk used on /var reaches 100 % in 2 d 6 h, around Tue 14:00" (in the customer's time zone). */
export function forecastAlertText(rule: ForecastRule, instance: string, at: Date, now: Date, timeZone: string): string {
  const metric = rule.metric ?? '';
  const info = metricInfo(metric);
  const on = instance ? ` ${info.preposition ?? 'on'} ${instance}` : '';
  const verb = directionOf(rule) === -1 ? 'falls to' : 'reaches';
  const limit = formatMetricValue(metric, rule.threshold ?? 0);
  const seconds = (at.getTime() - now.getTime()) / 1000;
  if (seconds < 60) return `${info.label}${on} ${verb} ${limit} now`;
  return `${info.label}${on} ${verb} ${limit} in ${durationText(seconds)}, around ${aroundText(at, now, timeZone)}`;
}

export interface ForecastInput {
  now: Date;
  systems: ReadonlyMap<number, SystemInfo>;
  rules: RuleBook<AlertRule>;
  lines: readonly FittedLine[];
  /** Open alerts of forecast rules. */
  open: readonly OpenAlert[];
  suppressed: Suppression;
  settings: ForecastSettings;
  timeZoneOf: (customerId: number) => string;
}

export interface ForecastDecision {
  raise: NewAlert[];
  resolve: { alert: OpenAlert; reason: string }[];
}

/** The forecast rules among a system's rules (systems mostly share one list: kept per list). */
function forecastRulesOf(cache: Map<readonly AlertRule[], AlertRule[]>, rules: readonly AlertRule[]): AlertRule[] {
  let found = cache.get(rules);
  if (!found) {
    found = rules.filter((rule) => rule.kind === 'forecast' && rule.metric !== null && rule.horizonSeconds !== null);
    cache.set(rules, found);
  }
  return found;
}

export function decideForecasts(input: ForecastInput): ForecastDecision {
  const { now, systems, rules, settings } = input;
  const cache = new Map<readonly AlertRule[], AlertRule[]>();
  const firing = new Map<string, NewAlert>();
  for (const line of input.lines) {
    const system = systems.get(line.systemId);
    if (!system) continue;
    for (const rule of forecastRulesOf(cache, rules.effectiveFor(system))) {
      if (rule.metric !== line.metric || !instanceMatches(rule.instanceGlob, line.instance)) continue;
      const at = projectedAt(rule, line, now, settings);
      if (!at || at.getTime() - now.getTime() > (rule.horizonSeconds as number) * 1000) continue;
      firing.set(identity(rule.key, system.id, line.instance), {
        ruleKey: rule.key,
        ruleKind: 'forecast',
        systemId: system.id,
        customerId: system.customerId,
        instance: line.instance,
        severity: rule.severity,
        // the value the line has now
        value: line.level + (line.slopePerH * (now.getTime() - line.through.getTime())) / HOUR_MS,
        message: forecastAlertText(rule, line.instance, at, now, input.timeZoneOf(system.customerId)),
      });
    }
  }
  const decision: ForecastDecision = { raise: [], resolve: [] };
  const openIds = new Set<string>();
  for (const alert of input.open) {
    const id = identity(alert.ruleKey, alert.systemId, alert.instance);
    openIds.add(id);
    if (!systems.has(alert.systemId) || firing.has(id)) continue;
    decision.resolve.push({ alert, reason: 'the projection lies beyond the horizon' });
  }
  for (const [id, alert] of firing) {
    const system = systems.get(alert.systemId) as SystemInfo;
    if (!openIds.has(id) && !input.suppressed(system)) decision.raise.push(alert);
  }
  return decision;
}
