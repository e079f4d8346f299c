import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { FormBuilder, ReactiveFormsModule } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatSelectModule } from '@angular/material/select';

import { AuthService, NotifyLevel, User } from '@console/core/auth';
import { identityControls, IdentityFields } from '@console/ui/identity-fields';
import { AccountApi, ProfileChanges } from './account-api';
import { Notify } from '@console/ui/notify';
import { FormFooter } from '@console/ui/form-footer';
import { Submission } from '@console/ui/submission';

export const SEVERITIES: readonly { value: NotifyLevel; label: string }[] = [
  { value: 'INFO', label: 'Info and above (everything)' },
  { value: 'WARNING', label: 'Warning and above' },
  { value: 'CRITICAL', label: 'Critical only' },
  { value: 'NONE', label: 'Nothing (alert e-mails off)' },
];

/** Name, sign-in identifiers and the minimum severity of alert e-mails for the signed-in account. */
@Component({
  selector: 'argus-profile-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [IdentityFields, FormFooter, MatFormFieldModule, MatSelectModule, ReactiveFormsModule],
  template: `
    <form class="argus-form narrow-form" [formGroup]="form" (ngSubmit)="save()">
      <argus-identity-fields [controls]="form.controls" [own]="true" />
      <mat-form-field>
        <mat-label>E-mail me about alerts of</mat-label>
        <mat-select formControlName="notifyMinSeverity">
          @for (severity of severities; track severity.value) {
            <mat-option [value]="severity.value">{{ severity.label }}</mat-option>
          }
        </mat-select>
        <mat-hint>Alerts below this severity still show in the console.</mat-hint>
      </mat-form-field>
      <argus-form-footer [submission]="submission" submit="Save profile" [blocked]="form.pristine" />
    </form>
  `,
})
export class ProfileForm {
  private readonly account = inject(AccountApi);
  private readonly auth = inject(AuthService);
  private readonly notify = inject(Notify);

  protected readonly severities = SEVERITIES;
  protected readonly form = inject(FormBuilder).nonNullable.group({
    ...identityControls(),
    notifyMinSeverity: 'WARNING' as NotifyLevel,
  });
  protected readonly submission = new Submission(this.form);

  constructor() {
    const user = this.auth.user();
    if (user) this.fill(user);
  }

  protected save(): void {
    if (!this.submission.ready()) return;
    const { name, email, username, notifyMinSeverity } = this.form.getRawValue();
    const changes: ProfileChanges = {
      name: name.trim(),
      email: email.trim(),
      username: username.trim() || null,
      notifyMinSeverity,
    };
    this.submission.run(this.account.updateProfile(changes), (user) => {
      this.fill(user);
      this.notify.done('Profile saved');
    });
  }

  private fill(user: User): void {
    this.form.reset({
      name: user.name,
      email: user.email,
      username: user.username ?? '',
      notifyMinSeverity: user.notifyMinSeverity,
    });
  }
}
