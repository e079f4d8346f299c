import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder, Validators } from '@angular/forms';
import { MatSelectModule } from '@angular/material/select';
import { MatSlideToggleModule } from '@angular/material/slide-toggle';
import { Observable } from 'rxjs';

import { errorMessage } from '@console/core/api-error';
import { Severity } from '@console/core/auth';
import {
  AlertRule,
  AlertRuleFields,
  NewRuleKind,
  NewScope,
  OFFLINE_RULE_KEY,
  Operator,
  OPERATORS,
  Preview,
} from '@console/shared/rules/rules-api';
import { PreviewList } from './preview-list';
import { RuleDialog, RuleDialogData } from './rule-dialog';
import { chosenScope, RuleScopeFields, ruleScopeControls } from './rule-scope-fields';
import { FORM_DIALOG } from '@console/ui/dialog-footer';
import { NameField } from '@console/ui/name-field';

export type AlertRuleDialogData = RuleDialogData<AlertRule>;

/** Creates or edits an alert rule, with a preview of the systems it would fire on now. */
@Component({
  selector: 'argus-alert-rule-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, NameField, MatSelectModule, MatSlideToggleModule, PreviewList, RuleScopeFields],
  templateUrl: './alert-rule-dialog.html',
})
export class AlertRuleDialog extends RuleDialog<AlertRule> {
  protected readonly isAdmin = this.auth.isAdmin;
  protected readonly operators = OPERATORS;
  /** A forecast rises to (>=) or falls to (<=) its threshold. */
  protected readonly forecastOperators: readonly Operator[] = ['>=', '<='];

  protected readonly form = inject(FormBuilder).nonNullable.group({
    ...ruleScopeControls(this.base?.key ?? '', this.scopeChoices, this.keyFixed),
    name: [this.base?.name ?? '', [Validators.required, Validators.maxLength(200)]],
    severity: (this.base?.severity ?? 'WARNING') as Severity,
    // an edited rule keeps its kind: the server refuses to change it
    kind: {
      value: (this.base?.kind === 'forecast' ? 'forecast' : 'metric') as NewRuleKind,
      disabled: Boolean(this.editing),
    },
    horizonHours: [
      this.base?.horizonSeconds ? this.base.horizonSeconds / 3600 : 72,
      [Validators.required, Validators.min(1), Validators.max(720)],
    ],
    metric: [this.base?.metric ?? '', Validators.pattern(/^[a-z0-9_.]{1,64}$/)],
    instanceGlob: [this.base?.instanceGlob ?? '', Validators.maxLength(128)],
    operator: (this.base?.operator ?? '>') as Operator,
    threshold: [this.base?.threshold ?? (null as number | null)],
    absolute: this.base?.absolute ?? false,
    forSeconds: [this.base?.forSeconds ?? 0, [Validators.required, Validators.min(0), Validators.max(2_592_000)]],
    enabled: this.base?.enabled ?? true,
    // a new override counts as downtime as the rule it overrides (its base)
    countsAsDowntime: this.base?.countsAsDowntime ?? false,
  });
  private readonly key = toSignal(this.form.controls.key.valueChanges, { initialValue: this.form.controls.key.value });
  protected readonly offline = computed(() => this.key() === OFFLINE_RULE_KEY);
  private readonly kind = toSignal(this.form.controls.kind.valueChanges, {
    initialValue: this.form.controls.kind.value,
  });
  protected readonly forecast = computed(() => !this.offline() && this.kind() === 'forecast');

  protected readonly preview = signal<Preview | null>(null);
  protected readonly previewError = signal<string | null>(null);

  protected save(): void {
    const scope = this.editing ? null : chosenScope(this.form.controls);
    if (this.form.invalid || scope === undefined) {
      this.form.markAllAsTouched();
      return;
    }
    const request: Observable<AlertRule> = this.editing
      ? this.api.updateAlertRule(this.editing.id, this.fields())
      : this.api.createAlertRule(this.form.getRawValue().key, scope, this.fields(), this.form.getRawValue().kind);
    this.send(request, this.form);
  }

  protected runPreview(): void {
    this.previewError.set(null);
    const scope = this.editing?.scope ? { type: this.editing.scope.type, id: this.editing.scope.id } : this.scope();
    this.api.previewDraft(this.form.getRawValue().key, scope, this.fields(), this.form.getRawValue().kind).subscribe({
      next: (preview) => this.preview.set(preview),
      error: (err: unknown) => this.previewError.set(errorMessage(err)),
    });
  }

  /** The draft's place for the preview: an edited rule's own, else the one chosen (global until chosen). */
  private scope(): NewScope {
    const { scopeType, scopeId } = this.form.getRawValue();
    return scopeType === 'global' || scopeId === null ? null : { type: scopeType, id: scopeId };
  }

  private fields(): AlertRuleFields {
    const v = this.form.getRawValue();
    const offline = this.offline();
    const forecast = this.forecast();
    return {
      name: v.name.trim(),
      severity: v.severity,
      metric: offline ? null : v.metric.trim() || null,
      instanceGlob: offline ? null : v.instanceGlob.trim() || null,
      operator: offline ? null : v.operator,
      threshold: offline || v.threshold === null ? null : Number(v.threshold),
      absolute: offline || forecast ? false : v.absolute,
      // a forecast's window smooths bursts already: it waits for nothing more
      forSeconds: forecast ? 0 : Number(v.forSeconds),
      horizonSeconds: forecast ? Math.round(Number(v.horizonHours) * 3600) : null,
      enabled: v.enabled,
      // a system offline is always down: the server refuses false for the offline rule
      countsAsDowntime: offline || v.countsAsDowntime,
    };
  }
}
