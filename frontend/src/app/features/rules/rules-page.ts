import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatSlideToggleChange, MatSlideToggleModule } from '@angular/material/slide-toggle';
import { Observable } from 'rxjs';

import { AuthService } from '@console/core/auth';
import { Loaded, loaded, LOADING } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';
import { mayWriteAt } from '@console/core/rights';
import { Icon } from '@console/ui/icon';
import { RowActions } from '@console/ui/row-actions';
import { SEVERITY_CHIPS, SEVERITY_LABELS } from '@console/shared/alerts/alerts-api';
import { AlertRuleDialog, AlertRuleDialogData } from './alert-rule-dialog';
import { EventRuleDialog, EventRuleDialogData } from './event-rule-dialog';
import {
  AlertRule,
  conditionText,
  durationText,
  EventRule,
  Preview,
  RuleScope,
  Rules,
  RulesApi,
  scopeText,
} from '@console/shared/rules/rules-api';
import { CardTable } from '@console/ui/card-table';
import { PreviewList } from './preview-list';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { Notify } from '@console/ui/notify';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

/** A global rule followed by its overrides, so an override reads as "this rule, but here". */
function grouped<T extends { key: string; scope: RuleScope | null }>(rules: T[]): T[] {
  const globals = rules.filter((r) => !r.scope);
  const keys = new Set(globals.map((r) => r.key));
  const orphans = rules.filter((r) => r.scope && !keys.has(r.key));
  return [...globals.flatMap((g) => [g, ...rules.filter((r) => r.scope && r.key === g.key)]), ...orphans];
}

type RuleKind = 'alert' | 'event';
type AnyRule = AlertRule | EventRule;

interface RuleTable {
  kind: RuleKind;
  title: string;
  /** The kind's own columns, between the rule and its severity. */
  columns: string[];
  rows: { rule: AnyRule; cells: string[]; alert: AlertRule | null }[];
}

/** Alert rules and event rules: global ones, overrides at a customer, cluster or system, and a preview. */
@Component({
  selector: 'argus-rules-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, CardTable, Icon, LoadState, MatButtonModule, MatSlideToggleModule, PreviewList, RowActions],
  templateUrl: './rules-page.html',
  styleUrl: './rules-page.scss',
})
export class RulesPage {
  private readonly api = inject(RulesApi);
  private readonly notify = inject(Notify);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  private readonly auth = inject(AuthService);
  protected readonly isAdmin = this.auth.isAdmin;
  protected readonly severityLabels = SEVERITY_LABELS;
  protected readonly severityChips = SEVERITY_CHIPS;
  protected readonly scopeLabel = scopeText;

  protected readonly rules = toSignal(this.api.rules$, { initialValue: LOADING as Refreshing<Rules> });
  /** Both kinds in one table layout: the rule, its own columns, then severity, place, enabled, actions. */
  protected readonly tables = computed<RuleTable[]>(() => {
    const r = this.rules();
    if (r.state !== 'ready') return [];
    return [
      {
        kind: 'alert',
        title: 'Alert rules',
        columns: ['Condition', 'Downtime'],
        rows: grouped(r.value.alertRules).map((rule) => ({
          rule,
          cells: [conditionText(rule), rule.countsAsDowntime ? 'Counts' : 'No'],
          alert: rule,
        })),
      },
      {
        kind: 'event',
        title: 'Event rules',
        columns: ['Matches', 'Resolves after'],
        rows: grouped(r.value.eventRules).map((rule) => ({
          rule,
          cells: [this.eventMatch(rule), durationText(rule.holdSeconds)],
          alert: null,
        })),
      },
    ];
  });
  /** ADMIN, or an OPERATOR with at least one customer: may place overrides. */
  protected readonly mayOverride = computed(() => {
    const user = this.auth.user();
    return !!user && (user.role === 'ADMIN' || (user.role === 'OPERATOR' && user.customerIds.length > 0));
  });

  protected readonly previewed = signal<AlertRule | null>(null);
  protected readonly preview = signal<Loaded<Preview>>(LOADING);

  protected mayWrite(rule: { scope: RuleScope | null }): boolean {
    const user = this.auth.user();
    if (!rule.scope || rule.scope.customerId === null) return user?.role === 'ADMIN';
    return mayWriteAt(user, rule.scope.customerId);
  }

  protected eventMatch(rule: EventRule): string {
    const what = rule.derived === 'reboot' ? 'reboot (uptime went down)' : `event ${rule.eventType}`;
    const also = [
      rule.derived && rule.eventType ? `or event ${rule.eventType}` : '',
      rule.messagePattern ? `message “${rule.messagePattern}”` : '',
      rule.minEventSeverity ? `severity ≥ ${SEVERITY_LABELS[rule.minEventSeverity]}` : '',
    ].filter(Boolean);
    return [what, ...also].join(', ');
  }

  protected showPreview(rule: AlertRule): void {
    this.previewed.set(rule);
    this.preview.set(LOADING);
    loaded(this.api.preview(rule.id)).subscribe((state) => this.preview.set(state));
  }

  protected closePreview(): void {
    this.previewed.set(null);
  }

  /** The kind's dialog: new (no data), edit ({rule}) or override ({overrideOf}); the row's kind matches its rule. */
  protected open(kind: RuleKind, data: { rule?: AnyRule; overrideOf?: AnyRule }, message: string): void {
    if (kind === 'alert')
      this.formDialog.open(AlertRuleDialog, { data: data as AlertRuleDialogData, width: '640px' }, message);
    else this.formDialog.open(EventRuleDialog, { data: data as EventRuleDialogData, width: '560px' }, message);
  }

  protected toggle(kind: RuleKind, rule: AnyRule, change: MatSlideToggleChange): void {
    const enabled = { enabled: change.checked };
    const request =
      kind === 'alert' ? this.api.updateAlertRule(rule.id, enabled) : this.api.updateEventRule(rule.id, enabled);
    this.run(request, change.checked ? 'Enabled' : 'Disabled');
  }

  protected remove(kind: RuleKind, rule: AnyRule): void {
    this.confirmDelete(rule, () =>
      kind === 'alert' ? this.api.deleteAlertRule(rule.id) : this.api.deleteEventRule(rule.id),
    );
  }

  private confirmDelete(rule: { key: string; scope: RuleScope | null }, remove: () => Observable<void>): void {
    this.confirmThen.delete({
      name: `${rule.key}${rule.scope ? ' at ' + scopeText(rule.scope) : ''}`,
      message: rule.scope
        ? 'The global rule applies there again.'
        : 'The rule stops being evaluated everywhere; its overrides stay. Default rules are not seeded again.',
      action: remove,
      done: 'Rule deleted',
    });
  }

  private run(request: Observable<unknown>, message: string): void {
    request.subscribe({ next: () => this.notify.done(message), error: (err: unknown) => this.notify.refused(err) });
  }
}
