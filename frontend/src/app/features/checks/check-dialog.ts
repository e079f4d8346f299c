import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormArray, FormBuilder, FormControl, FormGroup, Validators } from '@angular/forms';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { MatSelectModule } from '@angular/material/select';
import { MatSlideToggleModule } from '@angular/material/slide-toggle';

import { errorMessage } from '@console/core/api-error';
import { AuthService } from '@console/core/auth';
import { LOADING } from '@console/core/loaded';
import { mayWriteAt } from '@console/core/rights';
import {
  Check,
  CHECK_TYPE_LABELS,
  CHECK_TYPES,
  CheckResult,
  ChecksApi,
  CheckType,
  DNS_RECORD_TYPES,
  HTTP_METHODS,
  MAX_INTERVAL_S,
  MIN_INTERVAL_S,
} from '@console/shared/checks/checks-api';
import { byName, CustomersApi } from '@console/shared/customers/customers-api';
import { FORM_DIALOG } from '@console/ui/dialog-footer';
import { Field } from '@console/ui/field';
import { IconButton } from '@console/ui/icon-button';
import { NameField } from '@console/ui/name-field';
import { DialogSubmission } from '@console/ui/submission';
import { resultText } from './check-text';
import { HeaderForm, headerGroup, REQUIRED_SETTINGS, settingsFrom, SettingsForm, settingsGroup } from './check-form';

/** A number field of the check's timing: its label and bounds, what a missing value says. */
interface TimingField {
  label: string;
  control: FormControl<number> | FormControl<number | null>;
  min: number;
  max?: number;
  hint?: string;
  missing?: string;
}

export interface CheckDialogData {
  /** The check to edit; absent to create one. */
  check?: Check;
}

/** What "Try it now" said: the result, or why the server would not run it. */
export type TryOutcome =
  | { state: 'idle' }
  | { state: 'running' }
  | { state: 'done'; result: CheckResult }
  | { state: 'refused'; message: string };

/** "Up: HTTP 200 · 48 ms · keyword as expected", "Down: connection refused". */
export function tryText(outcome: TryOutcome): string {
  switch (outcome.state) {
    case 'idle':
      return '';
    case 'running':
      return 'Running the check from the Argus server…';
    case 'refused':
      return `Not run: ${outcome.message}`;
    case 'done':
      return `${outcome.result.up ? 'Up' : 'Down'}: ${resultText(outcome.result)}`;
  }
}

/**
 * Creates or edits a network check: its type's settings, its timing, and "Try it now", which runs
 * the settings once from the server before saving. A secret header's value is never shown back:
 * left empty on an edit, the stored value stays.
 */
@Component({
  selector: 'argus-check-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, Field, IconButton, MatSelectModule, MatSlideToggleModule, NameField],
  templateUrl: './check-dialog.html',
  styleUrl: './check-dialog.scss',
})
export class CheckDialog {
  private readonly api = inject(ChecksApi);
  private readonly auth = inject(AuthService);
  private readonly fb = inject(FormBuilder).nonNullable;
  protected readonly original = inject<CheckDialogData>(MAT_DIALOG_DATA).check ?? null;

  protected readonly types = CHECK_TYPES;
  protected readonly typeLabels = CHECK_TYPE_LABELS;
  protected readonly methods = HTTP_METHODS;
  protected readonly recordTypes = DNS_RECORD_TYPES;

  private readonly fleet = toSignal(inject(CustomersApi).loadFleet(), { initialValue: LOADING });
  /** The customers the account may add checks to; on edit the check's own (it cannot move). */
  protected readonly customers = computed(() => {
    const fleet = this.fleet();
    if (fleet.state !== 'ready') return [];
    const user = this.auth.user();
    return fleet.value.customers
      .filter((c) => (this.original ? c.id === this.original.customerId : mayWriteAt(user, c.id)))
      .sort(byName);
  });

  protected readonly form = this.fb.group({
    name: [this.original?.name ?? '', [Validators.required, Validators.maxLength(200)]],
    customerId: [
      { value: this.original?.customerId ?? this.firstCustomer(), disabled: !!this.original },
      Validators.required,
    ],
    clusterId: [this.original?.clusterId ?? (null as number | null)],
    type: [this.original?.type ?? ('http' as CheckType)],
    settings: settingsGroup(this.fb, this.original?.settings ?? null),
    intervalSeconds: [this.original?.intervalSeconds ?? 60, [Validators.required, Validators.min(MIN_INTERVAL_S)]],
    timeoutSeconds: [this.original?.timeoutSeconds ?? 10, [Validators.required, Validators.min(1)]],
    retries: [this.original?.retries ?? 1, [Validators.required, Validators.min(0)]],
    retryIntervalSeconds: [this.original?.retryIntervalSeconds ?? 20, [Validators.required]],
    maxResponseMs: [this.original?.maxResponseMs ?? (null as number | null)],
    enabled: [this.original?.enabled ?? true],
  });
  private readonly values = toSignal(this.form.valueChanges, { initialValue: this.form.getRawValue() });
  protected readonly type = computed(() => this.values().type ?? 'http');
  protected readonly settings = this.form.controls.settings as FormGroup<SettingsForm>;
  protected readonly headers = this.settings.controls.headers as FormArray<FormGroup<HeaderForm>>;

  /** The clusters of the chosen customer (optional). */
  protected readonly clusters = computed(() => {
    const fleet = this.fleet();
    const customerId = this.original?.customerId ?? this.values().customerId;
    return fleet.state === 'ready' ? fleet.value.clusters.filter((c) => c.customerId === customerId).sort(byName) : [];
  });

  /** The timing fields, two to a row. */
  protected readonly timingRows: TimingField[][] = [
    [
      {
        label: 'Interval (s)',
        control: this.form.controls.intervalSeconds,
        min: MIN_INTERVAL_S,
        max: MAX_INTERVAL_S,
        hint: `${MIN_INTERVAL_S} s to 1 h`,
        missing: `At least ${MIN_INTERVAL_S} s.`,
      },
      { label: 'Timeout (s)', control: this.form.controls.timeoutSeconds, min: 1, max: 60, missing: 'At least 1 s.' },
    ],
    [
      { label: 'Retries before down', control: this.form.controls.retries, min: 0, max: 10, missing: '0 to 10.' },
      {
        label: 'Retry interval (s)',
        control: this.form.controls.retryIntervalSeconds,
        min: MIN_INTERVAL_S,
        missing: 'Enter the retry interval.',
      },
    ],
    [
      {
        label: 'Slow above (ms, optional)',
        control: this.form.controls.maxResponseMs,
        min: 1,
        hint: 'Slower answers make it Degraded.',
      },
    ],
  ];

  protected readonly submission = new DialogSubmission<Check>(this.form);
  protected readonly tried = signal<TryOutcome>({ state: 'idle' });
  protected readonly tryText = computed(() => tryText(this.tried()));
  protected readonly tryFailed = computed(() => {
    const outcome = this.tried();
    return outcome.state === 'refused' || (outcome.state === 'done' && !outcome.result.up);
  });

  private firstCustomer(): number | null {
    const user = this.auth.user();
    return user?.role === 'OPERATOR' ? (user.customerIds[0] ?? null) : null;
  }

  protected addHeader(): void {
    this.headers.push(headerGroup(this.fb, null));
  }

  protected removeHeader(index: number): void {
    this.headers.removeAt(index);
  }

  /** Marks the empty fields the type needs; true when none is. */
  private typeFieldsFilled(): boolean {
    let filled = true;
    for (const name of REQUIRED_SETTINGS[this.type()]) {
      const control = this.settings.get(name);
      if (control && (control.value === '' || control.value === null)) {
        control.setErrors({ required: true });
        control.markAsTouched();
        filled = false;
      }
    }
    return filled;
  }

  protected tryNow(): void {
    const customerId = this.form.getRawValue().customerId;
    if (!this.typeFieldsFilled() || customerId === null) {
      this.tried.set({ state: 'refused', message: 'fill in the customer and the fields of the check first.' });
      return;
    }
    const v = this.form.getRawValue();
    this.tried.set({ state: 'running' });
    this.api
      .tryNow({
        customerId,
        settings: settingsFrom(v.type, this.settings.getRawValue()),
        timeoutSeconds: v.timeoutSeconds,
        maxResponseMs: v.maxResponseMs || null,
      })
      .subscribe({
        next: (result) => this.tried.set({ state: 'done', result }),
        error: (err: unknown) => this.tried.set({ state: 'refused', message: errorMessage(err) }),
      });
  }

  protected save(): void {
    const filled = this.typeFieldsFilled();
    if (!this.submission.ready() || !filled) return;
    const v = this.form.getRawValue();
    const fields = {
      name: v.name.trim(),
      clusterId: v.clusterId,
      settings: settingsFrom(v.type, this.settings.getRawValue()),
      intervalSeconds: v.intervalSeconds,
      timeoutSeconds: v.timeoutSeconds,
      retries: v.retries,
      retryIntervalSeconds: v.retryIntervalSeconds,
      maxResponseMs: v.maxResponseMs || null,
      enabled: v.enabled,
    };
    const request = this.original
      ? this.api.update(this.original.id, fields)
      : this.api.create({ ...fields, customerId: v.customerId as number });
    this.submission.save(request);
  }
}
