/**
 * "Which systems would fire now": the systems the account may see where a
 * rule's condition holds on the newest sample (not older than 5 minutes), with
 * instance and value. It ignores `for` (how long the condition has held),
 * maintenance windows and inactive customers, and says so in its answer. A
 * system governed by a more specific override of the same key is left out:
 * there the override decides, not this rule.
 */
import { visibleTo, type Principal, type Visible } from '../lib/access.js';
import { conditionHolds, instanceMatches } from '../rules/condition.js';
import type { Operator } from '../../../contracts/rules.js';
import { HOUR_MS } from './forecast-repo.js';
import { projectedAt, type ForecastSettingsSource } from './forecasts.js';
import { FRESH_MS } from './metric-rules.js';
import { OFFLINE_AFTER_MS } from './offline.js';
import { RuleBook } from './rule-book.js';
import type { ScopedRule } from './types.js';
import type { Clock } from '../lib/clock.js';
import type { PreviewCandidate, PreviewRepo } from './preview-repo.js';
import type { NewScope, RuleScope } from '../rules/repo.js';

export interface PreviewRule {
  /** Saved rules have an id; an unsaved one from the editor has none. */
  id: number | null;
  key: string;
  kind: 'metric' | 'offline' | 'forecast';
  metric: string | null;
  instanceGlob: string | null;
  operator: Operator | null;
  threshold: number | null;
  absolute: boolean;
  horizonSeconds: number | null;
  scope: NewScope | RuleScope | null;
}

const sameScope = (a: NewScope | null, b: NewScope | null) =>
  (a === null && b === null) || (a !== null && b !== null && a.type === b.type && a.id === b.id);

/**
 * Whether `rule` governs a system: the evaluation's own override resolution (RuleBook), over the
 * rule and its saved siblings of the same key. A disabled sibling still takes a system away from
 * `rule` when it is more specific: there it switches the key off.
 */
function governedBy(rule: PreviewRule, siblings: { id: number; scope: NewScope | null }[]) {
  const entry = (scope: NewScope | null): ScopedRule => ({
    key: rule.key,
    name: rule.key,
    severity: 'INFO',
    enabled: true,
    scope: scope && { type: scope.type, id: scope.id },
  });
  const others = siblings.filter((s) => s.id !== rule.id && !sameScope(s.scope, rule.scope)).map((s) => entry(s.scope));
  const mine = entry(rule.scope);
  const book = new RuleBook([...others, mine]);
  return (c: PreviewCandidate) =>
    book.ruleFor({ id: c.systemId, customerId: c.customerId, clusterId: c.clusterId }, rule.key) === mine;
}

/**
 * The answer lists at most this many (by system name, then instance) and counts them all: a rule that
 * fires on 10,000 systems answered 1.5 MiB and the console drew every one.
 */
export const PREVIEW_LISTED = 100;

export const PREVIEW_NOTE =
  'The condition on the newest sample only: "for", maintenance windows and inactive customers are not considered.';
export const FORECAST_NOTE =
  'The trend of the hourly rollup up to the last whole hour, carried to now: maintenance windows and inactive customers are not considered.';

/** The forecast rule's firing systems, soonest first, each with when it reaches the threshold. */
async function forecastFiring({ repo, settings: source }: PreviewDeps, rule: PreviewRule, now: Date, visible: Visible) {
  const settings = await source.get();
  const through = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
  const lines = await repo.forecastLines(rule.metric as string, through, settings.windowHours, visible);
  const horizonMs = (rule.horizonSeconds ?? 0) * 1000;
  return lines
    .filter((c) => instanceMatches(rule.instanceGlob, c.instance))
    .flatMap((c) => {
      const at = c.line ? projectedAt(rule, c.line, now, settings) : null;
      return at && at.getTime() - now.getTime() <= horizonMs ? [{ ...c, projectedAt: at }] : [];
    })
    .sort((a, b) => a.projectedAt.getTime() - b.projectedAt.getTime());
}

interface PreviewDeps {
  repo: PreviewRepo;
  clock: Clock;
  settings: ForecastSettingsSource;
}

export function createRulePreview(deps: PreviewDeps) {
  const { repo, clock } = deps;
  return {
    /** `siblings`: the saved rules with the same key (overrides and the global one). */
    async preview(principal: Principal, rule: PreviewRule, siblings: { id: number; scope: NewScope | null }[]) {
      const now = clock.now();
      const visible = visibleTo(principal);
      const governs = governedBy(rule, siblings);
      let firing: (PreviewCandidate & { projectedAt?: Date })[];
      if (rule.kind === 'forecast') firing = (await forecastFiring(deps, rule, now, visible)).filter(governs);
      else {
        const candidates =
          rule.kind === 'offline'
            ? await repo.silentSystems(new Date(now.getTime() - OFFLINE_AFTER_MS), visible)
            : await repo.latestValues(rule.metric as string, new Date(now.getTime() - FRESH_MS), visible);
        const holds = (c: PreviewCandidate) =>
          rule.kind === 'offline' ||
          (instanceMatches(rule.instanceGlob, c.instance) &&
            c.value !== null &&
            conditionHolds(
              { operator: rule.operator as Operator, threshold: rule.threshold as number, absolute: rule.absolute },
              c.value,
            ));
        firing = candidates.filter((c) => governs(c) && holds(c));
      }
      return {
        evaluatedAt: now.toISOString(),
        note: rule.kind === 'forecast' ? FORECAST_NOTE : PREVIEW_NOTE,
        total: firing.length,
        systems: firing.slice(0, PREVIEW_LISTED).map((c) => ({
          systemId: c.systemId,
          systemName: c.systemName,
          customerId: c.customerId,
          customerName: c.customerName,
          instance: c.instance,
          value: c.value,
          sampledAt: c.time.toISOString(),
          projectedAt: c.projectedAt ? c.projectedAt.toISOString() : null,
        })),
      };
    },
  };
}

export type RulePreview = ReturnType<typeof createRulePreview>;
