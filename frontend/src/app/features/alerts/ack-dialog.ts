import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { FormControl, FormGroup, Validators } from '@angular/forms';
import { MAT_DIALOG_DATA, MatDialog } from '@angular/material/dialog';
import { MatSelectModule } from '@angular/material/select';
import { Observable } from 'rxjs';

import { Alert, AlertsApi } from '@console/shared/alerts/alerts-api';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';

/** How long an acknowledgement may last (docs/api.md: `until` at most 30 days ahead); null: until it resolves. */
export const ACK_DURATIONS: readonly { minutes: number | null; label: string }[] = [
  { minutes: null, label: 'Until it resolves' },
  { minutes: 60, label: '1 hour' },
  { minutes: 4 * 60, label: '4 hours' },
  { minutes: 24 * 60, label: '24 hours' },
  { minutes: 7 * 24 * 60, label: '7 days' },
];

/** Acknowledges one alert with an optional note and expiry; closes with the acknowledged alert. */
@Component({
  selector: 'argus-ack-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, MatSelectModule],
  template: `
    <h2 mat-dialog-title>Acknowledge {{ alert.ruleKey }} on {{ alert.systemName }}</h2>
    <form [formGroup]="form" (ngSubmit)="save()">
      <mat-dialog-content class="argus-form">
        <p class="field-note">The alert stays open until its condition clears; everyone sees that you are on it.</p>
        <mat-form-field class="long-hint" subscriptSizing="dynamic">
          <mat-label>Acknowledge for</mat-label>
          <mat-select formControlName="minutes" data-testid="ack-for" canSelectNullableOptions>
            @for (choice of durations; track choice.minutes) {
              <mat-option [value]="choice.minutes">{{ choice.label }}</mat-option>
            }
          </mat-select>
          <mat-hint>Afterwards it counts as unacknowledged again: repeats and escalation resume.</mat-hint>
        </mat-form-field>
        <mat-form-field>
          <mat-label>Note (optional)</mat-label>
          <textarea matInput formControlName="note" rows="3" cdkFocusInitial></textarea>
          <mat-error>At most 1,000 characters.</mat-error>
        </mat-form-field>
      </mat-dialog-content>
      <argus-dialog-footer [submission]="submission" submit="Acknowledge" />
    </form>
  `,
})
export class AckDialog {
  private readonly api = inject(AlertsApi);
  protected readonly alert = inject<Alert>(MAT_DIALOG_DATA);
  protected readonly form = new FormGroup({
    note: new FormControl('', { nonNullable: true, validators: Validators.maxLength(1000) }),
    minutes: new FormControl<number | null>(null),
  });
  protected readonly durations = ACK_DURATIONS;
  protected readonly submission = new DialogSubmission<Alert>();

  protected save(): void {
    if (this.form.invalid) return;
    const minutes = this.form.controls.minutes.value;
    const until = minutes === null ? null : new Date(Date.now() + minutes * 60_000).toISOString();
    const request = this.api.acknowledge(this.alert.id, this.form.controls.note.value, until);
    this.submission.save(request);
  }
}

export function openAckDialog(dialog: MatDialog, alert: Alert): Observable<Alert | undefined> {
  return dialog.open<AckDialog, Alert, Alert>(AckDialog, { data: alert, width: '520px' }).afterClosed();
}
