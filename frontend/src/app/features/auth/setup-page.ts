import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { Router, RouterLink } from '@angular/router';

import { errorStatus } from '@console/core/api-error';
import { AuthService } from '@console/core/auth';
import { passwordGroup, passwordLength } from '@console/core/password-rules';
import { identityControls, IdentityFields } from '@console/ui/identity-fields';
import { NewPasswordFields } from '@console/ui/new-password-fields';
import { AuthCard } from './auth-card';
import { Submission } from '@console/ui/submission';

/**
 * Creates the first administrator; only reachable while no account exists.
 * The new administrator is signed in directly.
 */
@Component({
  selector: 'argus-setup-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [AuthCard, IdentityFields, MatButtonModule, NewPasswordFields, ReactiveFormsModule, RouterLink],
  templateUrl: './setup-page.html',
})
export class SetupPage {
  private readonly auth = inject(AuthService);
  private readonly router = inject(Router);

  protected readonly form = inject(FormBuilder).nonNullable.group(
    {
      ...identityControls(),
      password: ['', [Validators.required, passwordLength]],
      confirm: ['', Validators.required],
    },
    { validators: passwordGroup({ password: 'password', confirm: 'confirm', identityKeys: ['email', 'username'] }) },
  );
  protected readonly value = toSignal(this.form.valueChanges, { initialValue: this.form.getRawValue() });

  protected readonly submission = new Submission(this.form);
  /** Someone finished setup first: the form is of no use any more. */
  protected readonly alreadySetUp = signal(false);

  protected submit(): void {
    if (!this.submission.ready()) return;
    const { name, email, username, password } = this.form.getRawValue();
    const request = this.auth.setup({
      name: name.trim(),
      email: email.trim(),
      ...(username.trim() ? { username: username.trim() } : {}),
      password,
    });
    this.submission.run(request, () => this.signIn(email.trim(), password), {
      leaves: true,
      refused: (err) => {
        if (errorStatus(err) === 409) this.alreadySetUp.set(true);
      },
    });
  }

  /**
   * The administrator just chose this password: signing them in with it spares a second form. The
   * ordinary sign-in makes the session (limits, audit row, cookies as always); should it fail, the
   * account exists all the same and the sign-in page says so.
   */
  private signIn(email: string, password: string): void {
    const toLogin = () => void this.router.navigate(['/login'], { queryParams: { notice: 'setup' } });
    this.auth.login({ identifier: email, password }).subscribe({
      next: (result) => (result.kind === 'signed-in' ? void this.router.navigate(['/']) : toLogin()),
      error: toLogin,
    });
  }
}
