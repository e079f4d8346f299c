import { ChangeDetectionStrategy, Component, computed, DestroyRef, inject, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { FormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatCardModule } from '@angular/material/card';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatSelectModule } from '@angular/material/select';
import { MatSlideToggleModule } from '@angular/material/slide-toggle';

import { errorMessage } from '@console/core/api-error';
import { AuthService } from '@console/core/auth';
import { Loaded, loaded, LOADING } from '@console/core/loaded';
import { Icon } from '@console/ui/icon';
import { Encryption, SmtpApi, SmtpSettings, SmtpUpdate } from './smtp-api';
import { Notify } from '@console/ui/notify';
import { FormFooter } from '@console/ui/form-footer';
import { Submission } from '@console/ui/submission';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

export const ENCRYPTIONS: readonly { value: Encryption; label: string; port: number }[] = [
  { value: 'tls', label: 'SSL/TLS', port: 465 },
  { value: 'starttls', label: 'STARTTLS', port: 587 },
  { value: 'none', label: 'None (unencrypted)', port: 25 },
];
const DEFAULT_PORT = (encryption: Encryption) => ENCRYPTIONS.find((e) => e.value === encryption)?.port ?? 587;

type TestResult = { ok: true; to: string } | { ok: false; message: string };

/** SMTP for password resets, sign-in codes and alert e-mails (docs/operations.md "Settings edited at runtime"). */
@Component({
  selector: 'argus-smtp-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
    LoadState,
    Icon,
    FormFooter,
    MatButtonModule,
    MatCardModule,
    MatFormFieldModule,
    MatInputModule,
    MatProgressBarModule,
    MatSelectModule,
    MatSlideToggleModule,
    ReactiveFormsModule,
  ],
  templateUrl: './smtp-page.html',
  styleUrl: './smtp-page.scss',
})
export class SmtpPage {
  private readonly smtp = inject(SmtpApi);
  private readonly notify = inject(Notify);
  private readonly fb = inject(FormBuilder).nonNullable;
  protected readonly user = inject(AuthService).user;

  protected readonly encryptions = ENCRYPTIONS;
  protected readonly form = this.fb.group({
    enabled: false,
    host: ['', Validators.maxLength(255)],
    port: [587, [Validators.required, Validators.min(1), Validators.max(65535), Validators.pattern(/^\d+$/)]],
    encryption: 'starttls' as Encryption,
    user: '',
    password: '',
    fromAddress: ['', Validators.email],
    fromName: '',
  });
  protected readonly testTo = this.fb.control('', Validators.email);

  /** The settings as last loaded or saved. */
  protected readonly saved = signal<Loaded<SmtpSettings>>(LOADING);
  /** The stored password is removed on the next save (the "Clear" button). */
  protected readonly clearPassword = signal(false);
  protected readonly submission = new Submission(this.form);
  protected readonly testing = signal(false);
  protected readonly testResult = signal<TestResult | null>(null);

  private readonly dirty = signal(false);
  private encryptionBefore: Encryption = this.form.controls.encryption.value;
  protected readonly passwordSet = computed(() => {
    const saved = this.saved();
    return saved.state === 'ready' && saved.value.passwordSet;
  });
  /** The test uses what is saved, so it waits until the form is saved and mail is on. */
  protected readonly testBlocker = computed(() => {
    const saved = this.saved();
    if (saved.state !== 'ready') return 'Loading…';
    if (this.dirty()) return 'Save your changes first: the test uses the saved settings.';
    if (!saved.value.enabled) return 'Turn mail on and save first.';
    return null;
  });

  constructor() {
    const destroyRef = inject(DestroyRef);
    loaded(this.smtp.get())
      .pipe(takeUntilDestroyed(destroyRef))
      .subscribe((state) => {
        this.saved.set(state);
        if (state.state === 'ready') this.fill(state.value);
      });

    this.form.controls.enabled.valueChanges
      .pipe(takeUntilDestroyed(destroyRef))
      .subscribe((on) => this.requireWhenEnabled(on));
    this.form.valueChanges.pipe(takeUntilDestroyed(destroyRef)).subscribe(() => this.dirty.set(this.form.dirty));
  }

  /** The user picked an encryption: follow its usual port unless a custom port was typed. */
  protected encryptionChanged(): void {
    const { encryption, port } = this.form.controls;
    if (Number(port.value) === DEFAULT_PORT(this.encryptionBefore)) port.setValue(DEFAULT_PORT(encryption.value));
    this.encryptionBefore = encryption.value;
  }

  protected clearStoredPassword(): void {
    this.clearPassword.set(true);
    this.form.controls.password.setValue('');
    this.form.markAsDirty();
    this.dirty.set(true);
  }

  protected keepStoredPassword(): void {
    this.clearPassword.set(false);
  }

  protected save(): void {
    if (!this.submission.ready()) return;
    this.submission.run(this.smtp.save(this.update()), (settings) => {
      this.saved.set({ state: 'ready', value: settings });
      this.fill(settings);
      this.notify.done('Mail settings saved');
    });
  }

  protected sendTest(): void {
    if (this.testTo.invalid || this.testBlocker()) return;
    const to = this.testTo.value.trim();
    this.testing.set(true);
    this.testResult.set(null);
    this.smtp.sendTest(to || undefined).subscribe({
      next: () => {
        this.testing.set(false);
        this.testResult.set({ ok: true, to: to || (this.user()?.email ?? 'your address') });
      },
      error: (err: unknown) => {
        this.testing.set(false);
        this.testResult.set({ ok: false, message: errorMessage(err, 'The test mail could not be sent.') });
      },
    });
  }

  /** The PUT body: a typed password replaces, "Clear" sends "", otherwise the field is left out (keep). */
  private update(): SmtpUpdate {
    const { password, ...rest } = this.form.getRawValue();
    const update: SmtpUpdate = {
      ...rest,
      port: Number(rest.port),
      host: rest.host.trim(),
      fromAddress: rest.fromAddress.trim(),
    };
    if (password !== '') update.password = password;
    else if (this.clearPassword()) update.password = '';
    return update;
  }

  private fill(settings: SmtpSettings): void {
    this.form.reset(
      {
        enabled: settings.enabled,
        host: settings.host ?? '',
        port: settings.port ?? DEFAULT_PORT(settings.encryption),
        encryption: settings.encryption,
        user: settings.user ?? '',
        password: '',
        fromAddress: settings.fromAddress ?? '',
        fromName: settings.fromName ?? '',
      },
      { emitEvent: false },
    );
    this.encryptionBefore = settings.encryption;
    this.requireWhenEnabled(settings.enabled);
    this.clearPassword.set(false);
    this.dirty.set(false);
  }

  /** Host and sender are needed only while mail is on. */
  private requireWhenEnabled(on: boolean): void {
    for (const control of [this.form.controls.host, this.form.controls.fromAddress]) {
      if (on) control.addValidators(Validators.required);
      else control.removeValidators(Validators.required);
      control.updateValueAndValidity({ emitEvent: false });
    }
  }
}
