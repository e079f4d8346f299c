import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

import { Loaded, loaded, LOADING } from '@console/core/loaded';
import { AlertRetention, AlertRetentionApi } from './alert-retention-api';
import { Notify } from '@console/ui/notify';
import { FormFooter } from '@console/ui/form-footer';
import { Submission } from '@console/ui/submission';
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
    @let state = loadedState();
    <argus-load-state [state]="state" label="Loading the setting" />
    @if (state.state === 'ready') {
      <form class="argus-form narrow-form" [formGroup]="form" (ngSubmit)="save()">
        <mat-form-field subscriptSizing="dynamic" class="long-hint">
          <mat-label>Keep resolved alerts for (days)</mat-label>
          <input matInput type="number" formControlName="days" min="0" max="3650" />
          <mat-hint>0 keeps them until deleted by hand. Default 90.</mat-hint>
          <mat-error>{{ days.getError('server') ?? 'A whole number from 0 to 3650.' }}</mat-error>
        </mat-form-field>
        <argus-form-footer [submission]="submission" submit="Save" [blocked]="days.pristine" />
      </form>
    }
  `,
})
export class AlertRetentionPage {
  private readonly api = inject(AlertRetentionApi);
  private readonly notify = inject(Notify);
  protected readonly form = new FormGroup({
    days: new FormControl(90, {
      nonNullable: true,
      validators: [Validators.required, Validators.min(0), Validators.max(3650), Validators.pattern(/^\d+$/)],
    }),
  });
  protected readonly days = this.form.controls.days;
  protected readonly loadedState = signal<Loaded<AlertRetention>>(LOADING);
  protected readonly submission = new Submission();

  constructor() {
    loaded(this.api.get()).subscribe((state) => {
      if (state.state === 'ready') this.days.reset(state.value.retentionDays);
      this.loadedState.set(state);
    });
  }

  protected save(): void {
    if (this.days.invalid) {
      this.days.markAsTouched();
      return;
    }
    this.submission.run(this.api.save({ retentionDays: Number(this.days.value) }), (saved) => {
      this.days.reset(saved.retentionDays);
      this.notify.done('Alert retention saved');
    });
  }
}
