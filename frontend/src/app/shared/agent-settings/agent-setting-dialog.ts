import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { AbstractControl, FormBuilder, ValidationErrors, Validators } from '@angular/forms';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { MatSlideToggleModule } from '@angular/material/slide-toggle';
import { Observable } from 'rxjs';

import {
  AgentSetting,
  AgentSettingChanges,
  AgentSettingsApi,
  SETTING_KEY_PATTERN,
  SettingScope,
} from './agent-settings-api';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';

export interface AgentSettingDialogData {
  scope: SettingScope;
  /** Where the setting applies, for the title ("cluster prod", "web-01"). */
  scopeLabel: string;
  /** The setting to change; absent to add one. */
  setting?: AgentSetting;
}

/** Printable text; tab and line breaks allowed (the server refuses other control characters). */
const PRINTABLE = /^(?:[\t\n\r]|[^\p{Cc}\p{Cs}])*$/u;

/**
 * Adds a setting, or changes one's value and secret flag (the key stays: delete and add to rename).
 * A stored secret is never shown: its field starts empty, and only a typed value replaces it.
 */
@Component({
  selector: 'argus-agent-setting-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, MatSlideToggleModule],
  template: `
    <h2 mat-dialog-title>{{ title }}</h2>
    <form [formGroup]="form" (ngSubmit)="save()">
      <mat-dialog-content class="argus-form">
        <mat-form-field>
          <mat-label>Key</mat-label>
          <input matInput formControlName="key" autocomplete="off" class="mono" data-testid="setting-key" />
          <mat-hint>Lower case: a-z first, then a-z, 0-9, “_”, “.” or “-” (e.g. log.level).</mat-hint>
          @if (form.controls.key.hasError('server')) {
            <mat-error>{{ form.controls.key.getError('server') }}</mat-error>
          } @else {
            <mat-error>A-z first, then up to 63 of a-z, 0-9, “_”, “.” and “-”.</mat-error>
          }
        </mat-form-field>
        <mat-form-field floatLabel="always">
          <mat-label>Value</mat-label>
          <textarea
            matInput
            formControlName="value"
            rows="2"
            autocomplete="off"
            class="mono"
            data-testid="setting-value"
            [placeholder]="keepsStoredSecret() ? 'unchanged' : ''"
          ></textarea>
          @if (keepsStoredSecret()) {
            <mat-hint data-testid="value-hint">Stored and never shown. Type a new value to replace it.</mat-hint>
          } @else if (secret()) {
            <mat-hint data-testid="value-hint">Stored encrypted; sent only to the agents it applies to.</mat-hint>
          }
          @if (form.controls.value.hasError('server')) {
            <mat-error>{{ form.controls.value.getError('server') }}</mat-error>
          } @else if (form.controls.value.hasError('needsValue')) {
            <mat-error>Type the new value: the stored secret is never revealed.</mat-error>
          } @else if (form.controls.value.hasError('maxlength')) {
            <mat-error>At most 8192 characters.</mat-error>
          } @else {
            <mat-error>Control characters other than tab and line breaks are not allowed.</mat-error>
          }
        </mat-form-field>
        <mat-slide-toggle formControlName="secret" data-testid="setting-secret">Secret</mat-slide-toggle>
        <p class="field-note">A secret (a password, an API token) is write-only: the console never shows it again.</p>
      </mat-dialog-content>
      <argus-dialog-footer [submission]="submission" [submit]="data.setting ? 'Save' : 'Add setting'" />
    </form>
  `,
  styles: `
    .mono {
      font-family: var(--argus-mono);
    }
    .field-note {
      margin: 4px 0 0;
    }
  `,
})
export class AgentSettingDialog {
  protected readonly data = inject<AgentSettingDialogData>(MAT_DIALOG_DATA);
  private readonly api = inject(AgentSettingsApi);

  private readonly wasSecret = this.data.setting?.secret ?? false;
  protected readonly title = this.data.setting
    ? `Change ${this.data.setting.key}`
    : `New agent setting for ${this.data.scopeLabel}`;

  protected readonly form = inject(FormBuilder).nonNullable.group(
    {
      key: [
        { value: this.data.setting?.key ?? '', disabled: !!this.data.setting },
        [Validators.required, Validators.pattern(SETTING_KEY_PATTERN)],
      ],
      value: [this.data.setting?.value ?? '', [Validators.maxLength(8192), Validators.pattern(PRINTABLE)]],
      secret: this.wasSecret,
    },
    { validators: (group) => this.valueNeeded(group) },
  );
  protected readonly secret = toSignal(this.form.controls.secret.valueChanges, { initialValue: this.wasSecret });
  private readonly typed = toSignal(this.form.controls.value.valueChanges, {
    initialValue: this.form.controls.value.value,
  });
  /** Editing a secret with nothing typed: the stored value stays. */
  protected readonly keepsStoredSecret = computed(() => this.wasSecret && this.secret() && this.typed() === '');
  protected readonly submission = new DialogSubmission<AgentSetting>(this.form);

  protected save(): void {
    if (!this.submission.ready()) return;
    this.submission.save(this.request());
  }

  private request(): Observable<AgentSetting> {
    const { key, value, secret } = this.form.getRawValue();
    const setting = this.data.setting;
    if (!setting) return this.api.create({ scope: this.data.scope, key, value, secret });
    const changes: AgentSettingChanges = { secret };
    // an empty field on a secret keeps it; a plain value is always sent as shown
    if (!(this.wasSecret && value === '')) changes.value = value;
    return this.api.update(setting.id, changes);
  }

  /** A secret made plain needs a new value, since the stored one is never revealed. */
  private valueNeeded(group: AbstractControl): ValidationErrors | null {
    const value = group.get('value');
    const needs = this.wasSecret && group.get('secret')?.value === false && value?.value === '';
    if (needs) value?.setErrors({ ...value.errors, needsValue: true });
    else if (value?.hasError('needsValue')) {
      const { needsValue: _, ...rest } = value.errors ?? {};
      value.setErrors(Object.keys(rest).length ? rest : null);
    }
    return null;
  }
}
