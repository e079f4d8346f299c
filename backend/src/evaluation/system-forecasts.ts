/**
 * A system's forecast lines for its page's chart: the lines the runs stored (never a fit at request
 * time: reading a page costs one indexed read), each with the forecast rule governing the system
 * that looks farthest ahead for its series, and when the line reaches that rule's threshold. The
 * rules are resolved as the run resolves them (RuleBook), so the chart and the alerts agree.
 */
import type { SystemForecasts } from '../../../contracts/rules.js';
import { visibleTo, type Principal } from '../lib/access.js';
import type { Clock } from '../lib/clock.js';
import { NotFound } from '../lib/errors.js';
import { instanceMatches } from '../rules/condition.js';
import type { FittedLine } from './forecast-repo.js';
import { directionOf, forecastAlertText, minBuckets, projectedAt, type ForecastSettingsSource } from './forecasts.js';
import type { EvaluationRepos } from './repos.js';
import { RuleBook } from './rule-book.js';
import type { AlertRule } from './types.js';

export interface SystemForecastsDeps {
  repos: Pick<EvaluationRepos, 'run' | 'forecasts'>;
  clock: Clock;
  settings: ForecastSettingsSource;
}

/** Of the rules reading `line`, the one that looks farthest ahead (the projection is drawn that far). */
function farthestRule(rules: readonly AlertRule[], line: FittedLine): AlertRule | null {
  const reading = rules.filter(
    (rule) => rule.metric === line.metric && instanceMatches(rule.instanceGlob, line.instance),
  );
  return reading.reduce<AlertRule | null>(
    (best, rule) => (best && (best.horizonSeconds ?? 0) >= (rule.horizonSeconds ?? 0) ? best : rule),
    null,
  );
}

export function createSystemForecasts({ repos, clock, settings: source }: SystemForecastsDeps) {
  return {
    async forSystem(principal: Principal, systemId: number): Promise<SystemForecasts> {
      const system = await repos.forecasts.systemForForecasts(systemId, visibleTo(principal));
      if (!system) throw new NotFound('No such system');
      const now = clock.now();
      const rules = new RuleBook(await repos.run.loadAlertRules())
        .effectiveFor(system)
        .filter((rule) => rule.kind === 'forecast' && rule.metric !== null && rule.threshold !== null);
      const settings = await source.get();
      const stored = await repos.forecasts.linesOfSystem(system.id, [
        ...new Set(rules.map((rule) => rule.metric as string)),
      ]);
      const lines = stored.flatMap((line) => {
        const rule = farthestRule(rules, line);
        if (!rule) return [];
        const at = projectedAt(rule, line, now, settings);
        return [
          {
            metric: line.metric,
            instance: line.instance,
            through: line.through.toISOString(),
            level: line.level,
            slopePerHour: line.slopePerH,
            enoughData: line.buckets >= minBuckets(settings),
            ruleKey: rule.key,
            threshold: rule.threshold as number,
            direction: directionOf(rule),
            horizonSeconds: rule.horizonSeconds as number,
            projectedAt: at?.toISOString() ?? null,
            text: at ? forecastAlertText(rule, line.instance, at, now, system.timeZone) : null,
          },
        ];
      });
      return { evaluatedAt: now.toISOString(), windowHours: settings.windowHours, lines };
    },
  };
}

export type SystemForecastsService = ReturnType<typeof createSystemForecasts>;
