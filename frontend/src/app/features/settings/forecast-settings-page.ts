import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

import { ForecastSettings, ForecastSettingsApi } from './forecast-settings-api';
import { DocumentForm } from '@console/ui/document-form';
import { FormFooter } from '@console/ui/form-footer';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

const WHOLE = /^\d+$/;

/**
 * The forecast rules' trend (docs/rules.md "Forecast rules"): how many hours it is fitted over, and
 * how much of that window must hold data before a forecast is made. Administrators only. The share
 * is entered as a percentage, which reads better than 0.75.
 */
@Component({
  selector: 'argus-forecast-settings-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, LoadState, FormFooter, MatFormFieldModule, MatInputModule, ReactiveFormsModule],
  template: `
    <argus-page-header heading="Forecasts">
      Forecast rules ("disk full within 3 days") fit a straight line over the last hours of the hourly averages and
      carry it forward. A longer window ignores a cron job's burst or a fresh boot; a shorter one follows a change of
      pace sooner. Lines are fitted again once an hour.
    </argus-page-header>
    @let state = document.state();
    <argus-load-state [state]="state" label="Loading the settings" />
    @if (state.state === 'ready') {
      <form class="argus-form narrow-form" [formGroup]="form" (ngSubmit)="save()">
        <mat-form-field subscriptSizing="dynamic" class="long-hint">
          <mat-label>Trend window (hours)</mat-label>
          <input matInput type="number" formControlName="windowHours" min="6" max="720" />
          <mat-hint>From 6 to 720 hours (30 days). Default 24.</mat-hint>
          <mat-error>{{ windowHours.getError('server') ?? 'A whole number of hours from 6 to 720.' }}</mat-error>
        </mat-form-field>
        <mat-form-field subscriptSizing="dynamic" class="long-hint">
          <mat-label>Data needed (% of the window)</mat-label>
          <input matInput type="number" formControlName="minShare" min="10" max="100" />
          <mat-hint
            >No forecast for a series with fewer hours of data, such as a system enrolled today. Default 75.</mat-hint
          >
          <mat-error>{{ minShare.getError('server') ?? 'A whole percentage from 10 to 100.' }}</mat-error>
        </mat-form-field>
        <argus-form-footer [submission]="document.submission" submit="Save" [blocked]="form.pristine" />
      </form>
    }
  `,
})
export class ForecastSettingsPage {
  private readonly api = inject(ForecastSettingsApi);
  protected readonly form = new FormGroup({
    windowHours: new FormControl(24, {
      nonNullable: true,
      validators: [Validators.required, Validators.min(6), Validators.max(720), Validators.pattern(WHOLE)],
    }),
    // a percentage here, a share (0.1 to 1) in the API
    minShare: new FormControl(75, {
      nonNullable: true,
      validators: [Validators.required, Validators.min(10), Validators.max(100), Validators.pattern(WHOLE)],
    }),
  });
  protected readonly windowHours = this.form.controls.windowHours;
  protected readonly minShare = this.form.controls.minShare;
  protected readonly document = new DocumentForm<ForecastSettings>(this.form, this.api.get(), (settings) =>
    this.show(settings),
  );

  private show(settings: ForecastSettings): void {
    this.form.reset({ windowHours: settings.windowHours, minShare: Math.round(settings.minShare * 100) });
  }

  protected save(): void {
    const settings = () => ({
      windowHours: Number(this.windowHours.value),
      minShare: Number(this.minShare.value) / 100,
    });
    this.document.save(() => this.api.save(settings()), 'Forecast settings saved');
  }
}
