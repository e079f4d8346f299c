import { ChangeDetectionStrategy, Component, computed, inject, signal, viewChild } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder, FormGroupDirective, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSnackBar } from '@angular/material/snack-bar';

import { applyFieldError, errorMessage } from '../../core/api-error';
import { AuthService } from '../../core/auth';
import { GroupErrorMatcher, passwordGroup, passwordLength } from '../../core/password-rules';
import { PasswordRules } from '../../ui/password-rules';
import { AccountApi } from './account-api';

/** Change the own password; the server then ends the account's other sessions. */
@Component({
  selector: 'argus-password-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatFormFieldModule, MatInputModule, PasswordRules, ReactiveFormsModule],
  template: `
    <form class="argus-form narrow-form" [formGroup]="form" (ngSubmit)="save()">
      <!-- Lets password managers file the new password under the right account. -->
      <input
        type="text"
        class="sr-only"
        autocomplete="username"
        [value]="identities()[0]"
        readonly
        tabindex="-1"
        aria-hidden="true"
      />
      <mat-form-field>
        <mat-label>Current password</mat-label>
        <input matInput type="password" formControlName="currentPassword" autocomplete="current-password" required />
        @if (form.controls.currentPassword.hasError('server')) {
          <mat-error>{{ form.controls.currentPassword.getError('server') }}</mat-error>
        } @else {
          <mat-error>Enter your current password.</mat-error>
        }
      </mat-form-field>
      <mat-form-field subscriptSizing="dynamic" class="long-hint">
        <mat-label>New password</mat-label>
        <input
          matInput
          type="password"
          formControlName="newPassword"
          autocomplete="new-password"
          required
          [errorStateMatcher]="newMatcher"
          aria-describedby="account-password-rules"
        />
        @let next = form.controls.newPassword;
        @if (next.hasError('required')) {
          <mat-error>Choose a new password.</mat-error>
        } @else if (next.hasError('passwordTooShort') || next.hasError('passwordTooLong')) {
          <mat-error>Follow the password rules below.</mat-error>
        } @else if (next.hasError('server')) {
          <mat-error>{{ next.getError('server') }}</mat-error>
        } @else {
          <mat-error>The password must differ from your e-mail address and username.</mat-error>
        }
      </mat-form-field>
      <argus-password-rules
        id="account-password-rules"
        [password]="value().newPassword ?? ''"
        [identities]="identities()"
      />
      <mat-form-field>
        <mat-label>Confirm new password</mat-label>
        <input
          matInput
          type="password"
          formControlName="confirm"
          autocomplete="new-password"
          required
          [errorStateMatcher]="confirmMatcher"
        />
        @if (form.controls.confirm.hasError('required')) {
          <mat-error>Repeat the new password.</mat-error>
        } @else {
          <mat-error>The passwords do not match.</mat-error>
        }
      </mat-form-field>
      @if (error(); as message) {
        <p class="form-error" role="alert">{{ message }}</p>
      }
      <div class="form-actions">
        <button mat-flat-button type="submit" [disabled]="busy()">Change password</button>
      </div>
    </form>
  `,
})
export class PasswordForm {
  private readonly account = inject(AccountApi);
  private readonly auth = inject(AuthService);
  private readonly snackBar = inject(MatSnackBar);
  private readonly formDirective = viewChild.required(FormGroupDirective);

  protected readonly identities = computed(() => {
    const user = this.auth.user();
    return user ? [user.email, user.username ?? ''] : [];
  });

  protected readonly form = inject(FormBuilder).nonNullable.group(
    {
      currentPassword: ['', Validators.required],
      newPassword: ['', [Validators.required, passwordLength]],
      confirm: ['', Validators.required],
    },
    { validators: passwordGroup({ password: 'newPassword', confirm: 'confirm', identities: this.identities }) },
  );
  protected readonly value = toSignal(this.form.valueChanges, { initialValue: this.form.getRawValue() });
  protected readonly newMatcher = new GroupErrorMatcher('passwordIsIdentity');
  protected readonly confirmMatcher = new GroupErrorMatcher('passwordMismatch');

  protected readonly busy = signal(false);
  protected readonly error = signal<string | null>(null);

  protected save(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const { currentPassword, newPassword } = this.form.getRawValue();
    this.busy.set(true);
    this.error.set(null);
    this.account.changePassword(currentPassword, newPassword).subscribe({
      next: () => {
        this.busy.set(false);
        this.formDirective().resetForm();
        this.snackBar.open('Password changed. Your other sessions have been signed out.', undefined, {
          duration: 6000,
        });
      },
      error: (err: unknown) => {
        this.busy.set(false);
        if (!applyFieldError(this.form, err)) this.error.set(errorMessage(err));
      },
    });
  }
}
