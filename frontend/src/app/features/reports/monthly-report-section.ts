import { ChangeDetectionStrategy, Component, effect, inject, input, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatCheckboxModule } from '@angular/material/checkbox';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

import { MonthlyReportSettings, ReportsApi } from './reports-api';
import { Notify } from '@console/ui/notify';
import { Submission } from '@console/ui/submission';

/** Addresses as typed: one per line or separated by commas, semicolons or spaces. */
export const recipientsOf = (text: string): string[] =>
  text
    .split(/[\s,;]+/)
    .map((address) => address.trim())
    .filter(Boolean);

/**
 * The customer's monthly report e-mail, for its writers: on or off, the addresses,
 * and the last months sent. Sent on the 1st in the customer's zone with last month's PDF.
 */
@Component({
  selector: 'argus-monthly-report-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatCheckboxModule, MatFormFieldModule, MatInputModule, ReactiveFormsModule],
  template: `
    <section class="monthly" aria-labelledby="monthly-heading">
      <h2 id="monthly-heading">Monthly report by e-mail</h2>
      <p>
        On the 1st of each month, in the customer's time zone, last month's report goes to these addresses as a PDF,
        through the SMTP settings.
      </p>
      <form [formGroup]="form" (ngSubmit)="save()">
        <mat-checkbox formControlName="enabled" data-testid="monthly-enabled">Send the monthly report</mat-checkbox>
        <mat-form-field class="recipients">
          <mat-label>Recipients</mat-label>
          <textarea
            matInput
            formControlName="recipients"
            rows="3"
            data-testid="monthly-recipients"
            aria-describedby="recipients-hint"
          ></textarea>
          <mat-hint id="recipients-hint">One address per line, or separated by commas</mat-hint>
        </mat-form-field>
        @if (submission.error(); as message) {
          <p class="form-error" role="alert">{{ message }}</p>
        }
        <button mat-flat-button type="submit" [disabled]="submission.busy()">Save</button>
      </form>
      @if (deliveries().length > 0) {
        <h3>Sent</h3>
        <ul data-testid="deliveries">
          @for (d of deliveries(); track d.month) {
            <li>
              {{ d.month }}: {{ d.status }}
              @if (d.sentAt) {
                ({{ d.sentAt }})
              }
              @if (d.error) {
                : {{ d.error }}
              }
            </li>
          }
        </ul>
      }
    </section>
  `,
  styles: `
    .monthly {
      margin-top: 32px;
      max-width: 640px;
    }
    form {
      display: flex;
      flex-direction: column;
      align-items: flex-start;
      gap: 12px;
    }
    .recipients {
      width: 100%;
    }
  `,
})
export class MonthlyReportSection {
  private readonly api = inject(ReportsApi);
  private readonly notify = inject(Notify);
  readonly customerId = input.required<number>();

  protected readonly form = new FormGroup({
    enabled: new FormControl(false, { nonNullable: true }),
    recipients: new FormControl('', { nonNullable: true }),
  });
  protected readonly deliveries = signal<MonthlyReportSettings['deliveries']>([]);
  protected readonly submission = new Submission();

  constructor() {
    effect((onCleanup) => {
      const subscription = this.api.monthlySettings(this.customerId()).subscribe({
        next: (settings) => this.show(settings),
        error: (err: unknown) => this.submission.fail(err),
      });
      onCleanup(() => subscription.unsubscribe());
    });
  }

  protected save(): void {
    const { enabled, recipients } = this.form.getRawValue();
    const request = this.api.saveMonthlySettings(this.customerId(), { enabled, recipients: recipientsOf(recipients) });
    this.submission.run(request, (settings) => {
      this.show(settings);
      this.notify.done('Monthly report saved');
    });
  }

  private show(settings: MonthlyReportSettings): void {
    this.form.setValue({ enabled: settings.enabled, recipients: settings.recipients.join('\n') });
    this.deliveries.set(settings.deliveries);
  }
}
