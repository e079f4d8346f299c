import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

import { AlertRetention, AlertRetentionApi } from './alert-retention-api';
import { DocumentForm } from '@console/ui/document-form';
import { FormFooter } from '@console/ui/form-footer';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

/** How long resolved alerts are kept (docs/rules.md "Alert retention"): administrators only. */
@Component({
  selector: 'argus-alert-retention-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, LoadState, FormFooter, MatFormFieldModule, MatInputModule, ReactiveFormsModule],
  template: `
    <argus-page-header heading="Alert retention"
      >Resolved alerts older than this are deleted once an hour. Open alerts are never deleted.</argus-page-header
    >
    @let state = document.state();
    <argus-load-state [state]="state" label="Loading the setting" />
    @if (state.state === 'ready') {
      <form class="argus-form narrow-form" [formGroup]="form" (ngSubmit)="save()">
        <mat-form-field subscriptSizing="dynamic" class="long-hint">
          <mat-label>Keep resolved alerts for (days)</mat-label>
          <input matInput type="number" formControlName="days" min="0" max="3650" />
          <mat-hint>0 keeps them until deleted by hand. Default 90.</mat-hint>
          <mat-error>{{ days.getError('server') ?? 'A whole number from 0 to 3650.' }}</mat-error>
        </mat-form-field>
        <argus-form-footer [submission]="document.submission" submit="Save" [blocked]="days.pristine" />
      </form>
    }
  `,
})
export class AlertRetentionPage {
  private readonly api = inject(AlertRetentionApi);
  protected readonly form = new FormGroup({
    days: new FormControl(90, {
      nonNullable: true,
      validators: [Validators.required, Validators.min(0), Validators.max(3650), Validators.pattern(/^\d+$/)],
    }),
  });
  protected readonly days = this.form.controls.days;
  protected readonly document = new DocumentForm<AlertRetention>(this.form, this.api.get(), (retention) =>
    this.days.reset(retention.retentionDays),
  );

  protected save(): void {
    this.document.save(() => this.api.save({ retentionDays: Number(this.days.value) }), 'Alert retention saved');
  }
}
