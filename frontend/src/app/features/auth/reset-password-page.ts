import { ChangeDetectionStrategy, Component, inject, input, signal } from '@angular/core';
import { FormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { Router, RouterLink } from '@angular/router';

import { errorCode } from '@console/core/api-error';
import { AuthService } from '@console/core/auth';
import { passwordGroup, passwordLength } from '@console/core/password-rules';
import { NewPasswordFields } from '@console/ui/new-password-fields';
import { AuthCard } from './auth-card';
import { Submission } from '@console/ui/submission';

/** The page the reset e-mail links to (`/reset-password?token=…`). */
@Component({
  selector: 'argus-reset-password-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [AuthCard, MatButtonModule, NewPasswordFields, ReactiveFormsModule, RouterLink],
  template: `
    <argus-auth-card heading="Choose a new password">
      @if (!token()) {
        <p class="form-error" role="alert">This reset link is incomplete. Open the link from the e-mail again.</p>
        <div class="form-actions">
          <a mat-button routerLink="/forgot-password">Ask for a new link</a>
        </div>
      } @else {
        <form class="argus-form" [formGroup]="form" (ngSubmit)="submit()">
          <argus-new-password-fields
            [password]="form.controls.password"
            [confirm]="form.controls.confirm"
            label="New password"
            confirmLabel="Confirm new password"
          />
          @if (submission.error(); as message) {
            <p class="form-error" role="alert">
              {{ message }}
              @if (linkExpired()) {
                — <a routerLink="/forgot-password">ask for a new link</a>
              }
            </p>
          }
          <div class="form-actions">
            <button mat-flat-button type="submit" [disabled]="submission.busy()">Change password</button>
          </div>
        </form>
      }
    </argus-auth-card>
  `,
})
export class ResetPasswordPage {
  private readonly auth = inject(AuthService);
  private readonly router = inject(Router);

  /** Query parameter of the e-mailed link (router input binding). */
  readonly token = input<string>();

  protected readonly form = inject(FormBuilder).nonNullable.group(
    {
      password: ['', [Validators.required, passwordLength]],
      confirm: ['', Validators.required],
    },
    { validators: passwordGroup({ password: 'password', confirm: 'confirm' }) },
  );

  protected readonly submission = new Submission();
  protected readonly linkExpired = signal(false);

  protected submit(): void {
    const token = this.token();
    if (this.form.invalid || !token) {
      this.form.markAllAsTouched();
      return;
    }
    const request = this.auth.resetPassword(token, this.form.getRawValue().password);
    this.submission.run(request, () => void this.router.navigate(['/login'], { queryParams: { notice: 'reset' } }), {
      leaves: true,
      // A dead link cannot be fixed in this form; a password-rule 400 can.
      refused: (err) => this.linkExpired.set(errorCode(err) === 'reset_link_invalid'),
    });
  }
}
