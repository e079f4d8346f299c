import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { forkJoin, map, Observable, Subject, tap } from 'rxjs';

import { onTopics, Refreshing, refreshing } from '@console/core/refresh';
import type {
  AlertRule,
  AlertRuleFields,
  EventRule,
  EventRuleFields,
  NewAlertRule,
  NewEventRule,
  NewScope,
  Operator,
  RulePreview,
  RuleScope,
} from '@contracts/rules';

// the JSON of /api/alert-rules and /api/event-rules, from the schemas the server answers and reads with (contracts/rules.ts)
export type { AlertRule, AlertRuleFields, EventRule, EventRuleFields, NewScope, Operator, RuleScope };
export type ScopeType = RuleScope['type'];
/** The server's list (contracts/rules.ts OPERATORS), repeated: the console imports types only. */
export const OPERATORS: readonly Operator[] = ['>', '>=', '<', '<=', '==', '!='];

export type Preview = RulePreview;
export type PreviewSystem = RulePreview['systems'][number];

/** Not wire JSON: the two lists, fetched together for the rules page. */
export interface Rules {
  alertRules: AlertRule[];
  eventRules: EventRule[];
}

export const ALERT_RULES_URL = '/api/alert-rules';
export const EVENT_RULES_URL = '/api/event-rules';
export const OFFLINE_RULE_KEY = 'system.offline';
/** What a new rule reads: the newest value against its threshold, or the trend reaching it within a horizon. */
export type NewRuleKind = 'metric' | 'forecast';

/** Alert and event rules: global ones (ADMIN writes) and overrides at a scope (writers of its customer). */
@Injectable({ providedIn: 'root' })
export class RulesApi {
  private readonly http = inject(HttpClient);
  private readonly changed$ = new Subject<void>();

  readonly rules$: Observable<Refreshing<Rules>> = refreshing(
    () =>
      forkJoin({
        alertRules: this.http.get<AlertRule[]>(ALERT_RULES_URL),
        eventRules: this.http.get<EventRule[]>(EVENT_RULES_URL),
      }),
    this.changed$,
    onTopics('rules'),
  );

  createAlertRule(
    key: string,
    scope: NewScope,
    fields: AlertRuleFields,
    kind: NewRuleKind = 'metric',
  ): Observable<AlertRule> {
    return this.changes(
      this.http.post<AlertRule>(ALERT_RULES_URL, { key, kind, scope, ...fields } satisfies NewAlertRule),
    );
  }

  updateAlertRule(id: number, changes: Partial<AlertRuleFields>): Observable<AlertRule> {
    return this.changes(this.http.patch<AlertRule>(`${ALERT_RULES_URL}/${id}`, changes));
  }

  deleteAlertRule(id: number): Observable<void> {
    return this.changes(this.http.delete<void>(`${ALERT_RULES_URL}/${id}`)).pipe(map(() => undefined));
  }

  createEventRule(key: string, scope: NewScope, fields: EventRuleFields): Observable<EventRule> {
    return this.changes(this.http.post<EventRule>(EVENT_RULES_URL, { key, scope, ...fields } satisfies NewEventRule));
  }

  updateEventRule(id: number, changes: Partial<EventRuleFields>): Observable<EventRule> {
    return this.changes(this.http.patch<EventRule>(`${EVENT_RULES_URL}/${id}`, changes));
  }

  deleteEventRule(id: number): Observable<void> {
    return this.changes(this.http.delete<void>(`${EVENT_RULES_URL}/${id}`)).pipe(map(() => undefined));
  }

  /** Which systems a saved rule would fire on now (ignoring "for"). */
  preview(id: number): Observable<Preview> {
    return this.http.get<Preview>(`${ALERT_RULES_URL}/${id}/preview`);
  }

  /** The same for the rule being edited, before it is saved. */
  previewDraft(
    key: string,
    scope: NewScope,
    fields: AlertRuleFields,
    kind: NewRuleKind = 'metric',
  ): Observable<Preview> {
    return this.http.post<Preview>(`${ALERT_RULES_URL}/preview`, {
      key,
      kind,
      scope,
      ...fields,
    } satisfies NewAlertRule);
  }

  private changes<T>(request: Observable<T>): Observable<T> {
    return request.pipe(tap(() => this.changed$.next()));
  }
}

/** "cpu.usage_pct > 85 for 10 min", "|time.offset_ms| > 2000", "not seen for 2 min", "disk.used_pct reaches 100 within 3 d". */
export function conditionText(rule: AlertRule): string {
  if (rule.kind === 'offline') return 'not seen for 2 min';
  if (rule.kind === 'forecast') {
    const glob = rule.instanceGlob ? `{${rule.instanceGlob}}` : '';
    const verb = rule.operator === '<=' ? 'falls to' : 'reaches';
    return `${rule.metric}${glob} ${verb} ${rule.threshold} within ${durationText(rule.horizonSeconds ?? 0)}`;
  }
  const metric = rule.absolute ? `|${rule.metric}|` : rule.metric;
  const glob = rule.instanceGlob ? `{${rule.instanceGlob}}` : '';
  const wait = rule.forSeconds ? ` for ${durationText(rule.forSeconds)}` : '';
  return `${metric}${glob} ${rule.operator} ${rule.threshold}${wait}`;
}

/** 90 → "90 s", 600 → "10 min", 7200 → "2 h", 604800 → "7 d". */
export function durationText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

export function scopeText(scope: RuleScope | null): string {
  if (!scope) return 'Everywhere';
  const what = scope.type.charAt(0).toUpperCase() + scope.type.slice(1);
  return `${what}: ${scope.name ?? `#${scope.id} (deleted)`}`;
}
