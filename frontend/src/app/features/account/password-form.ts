import { ChangeDetectionStrategy, Component, computed, inject, viewChild } from '@angular/core';
import { FormBuilder, FormGroupDirective, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

import { AuthService } from '@console/core/auth';
import { passwordGroup, passwordLength } from '@console/core/password-rules';
import { NewPasswordFields } from '@console/ui/new-password-fields';
import { AccountApi } from './account-api';
import { Notify, NOTICE_MS } from '@console/ui/notify';
import { FormFooter } from '@console/ui/form-footer';
import { Submission } from '@console/ui/submission';

/** Change the own password; the server then ends the account's other sessions. */
@Component({
  selector: 'argus-password-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FormFooter, MatFormFieldModule, MatInputModule, NewPasswordFields, ReactiveFormsModule],
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
      <argus-form-footer [submission]="submission" submit="Change password" />
    </form>
  `,
})
export class PasswordForm {
  private readonly account = inject(AccountApi);
  private readonly auth = inject(AuthService);
  private readonly notify = inject(Notify);
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

  protected readonly submission = new Submission(this.form);

  protected save(): void {
    if (!this.submission.ready()) return;
    const { currentPassword, newPassword } = this.form.getRawValue();
    this.submission.run(this.account.changePassword(currentPassword, newPassword), () => {
      this.formDirective().resetForm();
      this.notify.done('Password changed. Your other sessions have been signed out.', NOTICE_MS.long);
    });
  }
}
