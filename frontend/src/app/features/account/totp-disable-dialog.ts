import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { FormBuilder, Validators } from '@angular/forms';
import { map } from 'rxjs';

import { applyFieldError, errorStatus } from '@console/core/api-error';
import { AuthService } from '@console/core/auth';
import { TotpApi } from './totp-api';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';

/**
 * Asks for the password before removing the authenticator: a session left open on a shared computer
 * must not be enough to weaken the sign-in. Closes with true once the server has turned it off.
 */
@Component({
  selector: 'argus-totp-disable-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG],
  template: `
    <h2 mat-dialog-title>Turn off two-factor authentication?</h2>
    <form [formGroup]="form" (ngSubmit)="turnOff()">
      <mat-dialog-content class="argus-form">
        <p>Sign-in will no longer ask for a code from your authenticator app. Enter your password to confirm.</p>
        <!-- Lets password managers offer the password of the right account. -->
        <input
          type="text"
          class="sr-only"
          autocomplete="username"
          [value]="username()"
          readonly
          tabindex="-1"
          aria-hidden="true"
        />
        <mat-form-field>
          <mat-label>Password</mat-label>
          <input matInput type="password" formControlName="password" autocomplete="current-password" required />
          @if (form.controls.password.hasError('server')) {
            <mat-error>{{ form.controls.password.getError('server') }}</mat-error>
          } @else {
            <mat-error>Enter your password.</mat-error>
          }
        </mat-form-field>
      </mat-dialog-content>
      <argus-dialog-footer [submission]="submission" submit="Turn off" danger />
    </form>
  `,
  styles: `
    mat-dialog-content.argus-form {
      padding-top: 8px;
    }
    p {
      margin: 0 0 8px;
    }
    .danger {
      --mat-button-filled-container-color: var(--mat-sys-error);
      --mat-button-filled-label-text-color: var(--mat-sys-on-error);
    }
  `,
})
export class TotpDisableDialog {
  private readonly totp = inject(TotpApi);
  private readonly auth = inject(AuthService);

  protected readonly username = computed(() => this.auth.user()?.email ?? '');
  protected readonly form = inject(FormBuilder).nonNullable.group({ password: ['', Validators.required] });
  protected readonly submission = new DialogSubmission<boolean>(this.form);

  protected turnOff(): void {
    if (!this.submission.ready()) return;
    const request = this.totp.disable(this.form.getRawValue().password).pipe(map(() => true));
    this.submission.save(request, (err) => this.wrongPassword(err));
  }

  /** docs/api.md: a 400 here means the password is wrong, whether or not the body names the field. */
  private wrongPassword(err: unknown): boolean {
    if (applyFieldError(this.form, err)) return true;
    if (errorStatus(err) !== 400) return false;
    const password = this.form.controls.password;
    password.setErrors({ server: 'The password is not right' });
    password.markAsTouched();
    return true;
  }
}
