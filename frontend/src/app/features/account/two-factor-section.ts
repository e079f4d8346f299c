import { Clipboard } from '@angular/cdk/clipboard';
import {
  afterNextRender,
  ChangeDetectionStrategy,
  Component,
  computed,
  ElementRef,
  inject,
  Injector,
  signal,
  viewChild,
} from '@angular/core';
import { FormBuilder, FormGroupDirective, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { catchError, filter, Observable, of, switchMap } from 'rxjs';

import { errorStatus } from '@console/core/api-error';
import { AuthService } from '@console/core/auth';
import { sixDigits } from '@console/core/validators';
import { CodeField } from '@console/ui/code-field';
import { Icon } from '@console/ui/icon';
import { TotpApi, TotpEnrolment } from './totp-api';
import { TotpDisableDialog } from './totp-disable-dialog';
import { FormFooter } from '@console/ui/form-footer';
import { Submission } from '@console/ui/submission';

/** "JBSW Y3DP EHPK 3PXP": a secret is easier to type from groups of four. */
export function groupSecret(secret: string): string {
  return (secret.match(/.{1,4}/g) ?? []).join(' ');
}

/** Only a PNG from our own API is shown; anything else (a wrong answer, a proxy page) is not put in an <img>. */
function pngDataUrl(url: string): string | null {
  return url.startsWith('data:image/png;base64,') ? url : null;
}

/** Two-factor authentication with an authenticator app: enrol (QR code, key, confirming code) or turn off. */
@Component({
  selector: 'argus-two-factor-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CodeField, Icon, FormFooter, MatButtonModule, ReactiveFormsModule],
  templateUrl: './two-factor-section.html',
  styleUrl: './two-factor-section.scss',
})
export class TwoFactorSection {
  private readonly auth = inject(AuthService);
  private readonly totp = inject(TotpApi);
  private readonly dialog = inject(MatDialog);
  private readonly clipboard = inject(Clipboard);
  private readonly injector = inject(Injector);

  protected readonly enabled = computed(() => this.auth.user()?.totpEnabled ?? false);

  /** The pending enrolment, shown until confirmed or abandoned; the secret lives only here. */
  protected readonly enrolment = signal<TotpEnrolment | null>(null);
  protected readonly qrCode = computed(() => {
    const enrolment = this.enrolment();
    return enrolment ? pngDataUrl(enrolment.qrDataUrl) : null;
  });
  protected readonly groupedSecret = computed(() => groupSecret(this.enrolment()?.secret ?? ''));
  /** The server no longer holds the pending secret (409): this QR code can never be confirmed. */
  protected readonly expired = signal(false);

  protected readonly form = inject(FormBuilder).nonNullable.group({
    code: ['', [Validators.required, sixDigits]],
  });
  private readonly formDirective = viewChild(FormGroupDirective);
  private readonly enrolHeading = viewChild<ElementRef<HTMLElement>>('enrolHeading');

  protected readonly submission = new Submission(this.form);
  protected readonly notice = signal<string | null>(null);
  protected readonly copied = signal<'no' | 'yes' | 'failed'>('no');

  protected start(): void {
    this.notice.set(null);
    this.submission.run(this.totp.setup(), (enrolment) => {
      this.expired.set(false);
      this.copied.set('no');
      this.form.reset();
      this.enrolment.set(enrolment);
      // The button that was clicked is gone; continue reading from the first step.
      afterNextRender(() => this.enrolHeading()?.nativeElement.focus(), { injector: this.injector });
    });
  }

  protected confirm(): void {
    if (!this.submission.ready()) return;
    const code = this.form.getRawValue().code.replace(/\s/g, '');
    const request = this.totp.confirm(code).pipe(switchMap(() => this.reloadUser(true)));
    this.submission.run(
      request,
      () => {
        this.enrolment.set(null);
        this.notice.set(
          'Two-factor authentication is on. From your next sign-in, Argus asks for a code from your app.',
        );
      },
      { refused: (err) => this.setupExpired(err) },
    );
  }

  /** 409: the set-up expired; the page offers to start again instead of an error line. */
  private setupExpired(err: unknown): boolean {
    if (errorStatus(err) !== 409) return false;
    this.expired.set(true);
    return true;
  }

  /** Leaves the enrolment; the unconfirmed secret stays unused on the server until the next set-up replaces it. */
  protected cancel(): void {
    this.enrolment.set(null);
    this.expired.set(false);
    this.submission.error.set(null);
    this.formDirective()?.resetForm();
  }

  protected turnOff(): void {
    this.notice.set(null);
    this.dialog
      .open<TotpDisableDialog, void, boolean>(TotpDisableDialog, { width: '440px', autoFocus: 'first-tabbable' })
      .afterClosed()
      .pipe(
        filter((turnedOff) => turnedOff === true),
        switchMap(() => this.reloadUser(false)),
      )
      .subscribe(() =>
        this.notice.set('Two-factor authentication is off. Sign-in no longer asks for a code from your app.'),
      );
  }

  protected copySecret(secret: string): void {
    this.copied.set(this.clipboard.copy(secret) ? 'yes' : 'failed');
  }

  /**
   * Reads the account again so `totpEnabled` is the server's. Should that read fail, the change itself
   * has succeeded: the page shows the known new state rather than an error.
   */
  private reloadUser(totpEnabled: boolean): Observable<unknown> {
    return this.auth.loadMe().pipe(
      catchError(() => {
        const user = this.auth.user();
        if (user) this.auth.updateUser({ ...user, totpEnabled });
        return of(null);
      }),
    );
  }
}
