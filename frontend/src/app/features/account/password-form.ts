import { ChangeDetectionStrategy, Component, computed, inject, signal, viewChild } from '@angular/core';
import { FormBuilder, FormGroupDirective, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSnackBar } from '@angular/material/snack-bar';

import { applyFieldError, errorMessage } from '../../core/api-error';
import { AuthService } from '../../core/auth';
import { passwordGroup, passwordLength } from '../../core/password-rules';
import { NewPasswordFields } from '../../ui/new-password-fields';
import { AccountApi } from './account-api';

/** Change the own password; the server then ends the account's other sessions. */
@Component({
  selector: 'argus-password-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatFormFieldModule, MatInputModule, NewPasswordFields, ReactiveFormsModule],
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
      <argus-new-password-fields
        [password]="form.controls.newPassword"
        name="newPassword"
        [confirm]="form.controls.confirm"
        label="New password"
        confirmLabel="Confirm new password"
        missing="Choose a new password."
        [identities]="identities()"
      />
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
