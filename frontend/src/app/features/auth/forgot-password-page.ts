import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { FormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { RouterLink } from '@angular/router';

import { AuthService } from '@console/core/auth';
import { AuthCard } from './auth-card';
import { FormFooter } from '@console/ui/form-footer';
import { Submission } from '@console/ui/submission';

/** Asks for a reset link. The answer never says whether the account exists (docs/api.md: 202 always). */
@Component({
  selector: 'argus-forgot-password-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [AuthCard, FormFooter, MatButtonModule, MatFormFieldModule, MatInputModule, ReactiveFormsModule, RouterLink],
  template: `
    <argus-auth-card heading="Forgot your password?" intro="We will e-mail you a link to choose a new one.">
      @if (sentTo(); as email) {
        <p class="form-notice" role="status">
          If an account exists for {{ email }}, a link is on its way. It is valid for one hour.
        </p>
        <div class="form-actions">
          <a mat-button routerLink="/login">Back to sign in</a>
        </div>
      } @else {
        <form class="argus-form" [formGroup]="form" (ngSubmit)="submit()">
          <mat-form-field>
            <mat-label>E-mail address</mat-label>
            <input matInput type="email" formControlName="email" autocomplete="email" required />
            <mat-error>Enter a valid e-mail address.</mat-error>
          </mat-form-field>
          <argus-form-footer [submission]="submission" submit="Send link">
            <a mat-button class="aside" routerLink="/login">Back to sign in</a>
          </argus-form-footer>
        </form>
      }
    </argus-auth-card>
  `,
})
export class ForgotPasswordPage {
  private readonly auth = inject(AuthService);

  protected readonly form = inject(FormBuilder).nonNullable.group({
    email: ['', [Validators.required, Validators.email]],
  });
  protected readonly submission = new Submission();
  protected readonly sentTo = signal<string | null>(null);

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const { email } = this.form.getRawValue();
    this.submission.run(this.auth.forgotPassword(email), () => this.sentTo.set(email), { leaves: true });
  }
}
