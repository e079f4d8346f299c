import { Clipboard } from '@angular/cdk/clipboard';
import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { FormBuilder, Validators } from '@angular/forms';
import { provideNativeDateAdapter } from '@angular/material/core';
import { MatDatepickerModule } from '@angular/material/datepicker';

import { Icon } from '@console/ui/icon';
import { CreatedToken, TokensApi } from './tokens-api';
import { Submission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';

/** A token chosen to expire "on 31 Dec" works through that whole day, in the user's time zone. */
export function endOfDay(day: Date): string {
  const end = new Date(day.getFullYear(), day.getMonth(), day.getDate(), 23, 59, 59, 999);
  return end.toISOString();
}

/**
 * Creates a token, then shows its value once with a copy button. The value lives only in this
 * dialog: closing it forgets the value for good (docs/protocol.md "API tokens": displayed once at creation).
 */
@Component({
  selector: 'argus-token-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, Icon, MatDatepickerModule],
  providers: [provideNativeDateAdapter()],
  templateUrl: './token-dialog.html',
  styleUrl: './token-dialog.scss',
})
export class TokenDialog {
  private readonly tokens = inject(TokensApi);
  private readonly clipboard = inject(Clipboard);
  private readonly fb = inject(FormBuilder);

  protected readonly form = this.fb.group({
    name: this.fb.nonNullable.control('', [Validators.required, Validators.maxLength(100)]),
    expires: this.fb.control<Date | null>(null),
  });
  protected readonly today = new Date();

  protected readonly created = signal<CreatedToken | null>(null);
  protected readonly copied = signal<'no' | 'yes' | 'failed'>('no');
  /** A refusal shows on the error line only (the fields' own checks are the whole of it). */
  protected readonly submission = new Submission();

  protected create(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const { name, expires } = this.form.getRawValue();
    this.submission.run(this.tokens.create(name.trim(), expires ? endOfDay(expires) : null), (token) =>
      this.created.set(token),
    );
  }

  protected copy(value: string): void {
    this.copied.set(this.clipboard.copy(value) ? 'yes' : 'failed');
  }
}
