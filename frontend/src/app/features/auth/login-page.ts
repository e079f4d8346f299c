import {
  afterNextRender,
  ChangeDetectionStrategy,
  Component,
  computed,
  inject,
  Injector,
  input,
  signal,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatCheckboxModule } from '@angular/material/checkbox';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { Router, RouterLink } from '@angular/router';
import { catchError, of } from 'rxjs';

import { errorCode, errorStatus } from '@console/core/api-error';
import { AuthService, Credentials, SecondFactor } from '@console/core/auth';
import { safeReturnUrl } from '@console/core/return-url';
import { sixDigits } from '@console/core/validators';
import { CodeField } from '@console/ui/code-field';
import { Icon } from '@console/ui/icon';
import { AuthCard } from './auth-card';
import { FormFooter } from '@console/ui/form-footer';
import { Submission } from '@console/ui/submission';
import { SsoButton } from './sso-button';

/** Messages other pages leave for this one (`/login?notice=…`). */
export const LOGIN_NOTICES: Record<string, string> = {
  setup: 'Your administrator account is ready. Sign in with it.',
  reset: 'Your password has been changed. Sign in with the new one.',
};

@Component({
  selector: 'argus-login-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    AuthCard,
    CodeField,
    Icon,
    FormFooter,
    MatButtonModule,
    MatCheckboxModule,
    MatFormFieldModule,
    MatInputModule,
    ReactiveFormsModule,
    RouterLink,
    SsoButton,
  ],
  templateUrl: './login-page.html',
})
export class LoginPage {
  private readonly auth = inject(AuthService);
  private readonly router = inject(Router);
  private readonly injector = inject(Injector);
  private readonly fb = inject(FormBuilder).nonNullable;

  /** Query parameters (router input binding). */
  readonly returnUrl = input<string>();
  readonly notice = input<string>();

  protected readonly options = toSignal(this.auth.options$.pipe(catchError(() => of(null))));
  protected readonly noticeText = computed(() => LOGIN_NOTICES[this.notice() ?? ''] ?? null);

  protected readonly credentials = this.fb.group({
    identifier: ['', Validators.required],
    password: ['', Validators.required],
  });
  protected readonly codeForm = this.fb.group({
    code: ['', [Validators.required, sixDigits]],
    trustDevice: false,
  });

  /** Null while asking for the password; the method once the server asked for a code. */
  protected readonly secondFactor = signal<SecondFactor | null>(null);
  protected readonly submission = new Submission();
  protected readonly hidePassword = signal(true);

  private readonly codeField = viewChild(CodeField);

  protected signIn(): void {
    if (this.credentials.invalid) {
      this.credentials.markAllAsTouched();
      return;
    }
    this.send(this.credentials.getRawValue());
  }

  protected verify(): void {
    if (this.codeForm.invalid) {
      this.codeForm.markAllAsTouched();
      return;
    }
    const { code, trustDevice } = this.codeForm.getRawValue();
    this.send({ ...this.credentials.getRawValue(), code: code.replace(/\s/g, ''), trustDevice });
  }

  /** Back to the password step, e.g. to sign in as someone else. */
  protected startOver(): void {
    this.secondFactor.set(null);
    this.codeForm.reset();
    this.submission.error.set(null);
  }

  private send(credentials: Credentials): void {
    this.submission.run(
      this.auth.login(credentials),
      (result) => {
        if (result.kind === 'signed-in') {
          void this.router.navigateByUrl(safeReturnUrl(this.returnUrl()));
        } else {
          this.secondFactor.set(result.method);
          afterNextRender(() => this.codeField()?.focus(), { injector: this.injector });
        }
      },
      {
        // A wrong code (401 'invalid_code') keeps the code step to try again; another 401 there (the
        // password changed meanwhile, the account was disabled) starts over with the password.
        refused: (err) => {
          if (this.secondFactor() && errorStatus(err) === 401 && errorCode(err) !== 'invalid_code') {
            this.secondFactor.set(null);
            this.codeForm.reset();
          }
        },
      },
    );
  }
}
