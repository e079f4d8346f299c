import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { FormBuilder, Validators } from '@angular/forms';
import { MatSelectModule } from '@angular/material/select';
import { MatSlideToggleModule } from '@angular/material/slide-toggle';
import { Observable } from 'rxjs';

import { Severity } from '@console/core/auth';
import { EventRule, EventRuleFields } from '@console/shared/rules/rules-api';
import { RuleDialog, RuleDialogData } from './rule-dialog';
import { chosenScope, RuleScopeFields, ruleScopeControls } from './rule-scope-fields';
import { FORM_DIALOG } from '@console/ui/dialog-footer';
import { NameField } from '@console/ui/name-field';

export type EventRuleDialogData = RuleDialogData<EventRule>;

/** Creates or edits an event rule: which agent events (or derived events) raise an alert, held for a while. */
@Component({
  selector: 'argus-event-rule-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, NameField, MatSelectModule, MatSlideToggleModule, RuleScopeFields],
  template: `
    <h2 mat-dialog-title>
      {{ heading('event') }}
    </h2>
    <form [formGroup]="form" (ngSubmit)="save()">
      <mat-dialog-content class="argus-form">
        @if (!editing) {
          <argus-rule-scope-fields [controls]="form.controls" [choices]="scopeChoices" />
        }
        <argus-name-field [control]="form.controls.name" />
        <mat-form-field>
          <mat-label>Derived event</mat-label>
          <mat-select formControlName="derived">
            <mat-option [value]="null">None: match agent events</mat-option>
            <mat-option value="reboot">Reboot (uptime went down)</mat-option>
          </mat-select>
        </mat-form-field>
        <mat-form-field>
          <mat-label>Event type</mat-label>
          <input matInput formControlName="eventType" autocomplete="off" placeholder="service.failed" />
          <mat-hint>Needed unless a derived event is chosen</mat-hint>
          <mat-error>{{
            form.controls.eventType.getError('server') ?? 'An event type such as service.failed.'
          }}</mat-error>
        </mat-form-field>
        <mat-form-field>
          <mat-label>Message pattern (optional)</mat-label>
          <input matInput formControlName="messagePattern" autocomplete="off" />
        </mat-form-field>
        <mat-form-field>
          <mat-label>Minimum event severity</mat-label>
          <mat-select formControlName="minEventSeverity">
            <mat-option [value]="null">Any</mat-option>
            @for (s of severities; track s) {
              <mat-option [value]="s">{{ severityLabels[s] }}</mat-option>
            }
          </mat-select>
        </mat-form-field>
        <mat-form-field>
          <mat-label>Alert severity</mat-label>
          <mat-select formControlName="severity">
            @for (s of severities; track s) {
              <mat-option [value]="s">{{ severityLabels[s] }}</mat-option>
            }
          </mat-select>
        </mat-form-field>
        <mat-form-field>
          <mat-label>Resolves after (seconds)</mat-label>
          <input matInput type="number" formControlName="holdSeconds" min="0" />
          <mat-error>{{ form.controls.holdSeconds.getError('server') ?? '0 to 2,592,000 (30 days).' }}</mat-error>
        </mat-form-field>
        <mat-slide-toggle formControlName="enabled">Enabled</mat-slide-toggle>
      </mat-dialog-content>
      <argus-dialog-footer [submission]="submission" [submit]="editing ? 'Save' : 'Create rule'" />
    </form>
  `,
})
export class EventRuleDialog extends RuleDialog<EventRule> {
  protected readonly form = inject(FormBuilder).nonNullable.group({
    ...ruleScopeControls(this.base?.key ?? '', this.scopeChoices, this.keyFixed),
    name: [this.base?.name ?? '', [Validators.required, Validators.maxLength(200)]],
    severity: (this.base?.severity ?? 'WARNING') as Severity,
    eventType: this.base?.eventType ?? '',
    messagePattern: this.base?.messagePattern ?? '',
    minEventSeverity: [this.base?.minEventSeverity ?? (null as Severity | null)],
    derived: [this.base?.derived ?? (null as 'reboot' | null)],
    holdSeconds: [this.base?.holdSeconds ?? 1800, [Validators.required, Validators.min(0), Validators.max(2_592_000)]],
    enabled: this.base?.enabled ?? true,
  });

  protected save(): void {
    const v = this.form.getRawValue();
    const scope = this.editing ? null : chosenScope(this.form.controls);
    if (this.form.invalid || scope === undefined) {
      this.form.markAllAsTouched();
      return;
    }
    const fields: EventRuleFields = {
      name: v.name.trim(),
      severity: v.severity,
      eventType: v.eventType.trim() || null,
      messagePattern: v.messagePattern.trim() || null,
      minEventSeverity: v.minEventSeverity,
      derived: v.derived,
      holdSeconds: Number(v.holdSeconds),
      enabled: v.enabled,
    };
    const request: Observable<EventRule> = this.editing
      ? this.api.updateEventRule(this.editing.id, fields)
      : this.api.createEventRule(v.key, scope, fields);
    this.send(request, this.form);
  }
}
