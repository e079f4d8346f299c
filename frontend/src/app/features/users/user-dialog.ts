import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { FormBuilder, Validators } from '@angular/forms';
import { MAT_DIALOG_DATA } from '@angular/material/dialog';
import { MatSelectModule } from '@angular/material/select';
import { MatSlideToggleModule } from '@angular/material/slide-toggle';
import { Observable } from 'rxjs';

import { errorStatus } from '@console/core/api-error';
import { Role, ROLES, roleLabel } from '@console/core/auth';
import { Loaded, LOADING } from '@console/core/loaded';
import { passwordGroup, passwordLength } from '@console/core/password-rules';
import { identityControls, IdentityFields } from '@console/ui/identity-fields';
import { NewPasswordFields } from '@console/ui/new-password-fields';
import { Customer, User, UserChanges, UserRow, UsersApi } from './users-api';
import { Notify } from '@console/ui/notify';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';

export interface UserDialogData {
  /** The account to edit; absent to create one. */
  user?: UserRow;
}

export const ROLE_HINTS: Record<Role, string> = {
  ADMIN: 'Everything, at every customer, including users and settings.',
  OPERATOR: 'Sees and acts (acknowledge, edit rules) at the customers granted below.',
  VIEWER: 'Sees the customers granted below; changes nothing.',
};

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}

/** Creates an account, or edits one: identity, role, disabled, customer grants and an optional new password. */
@Component({
  selector: 'argus-user-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG, IdentityFields, MatSelectModule, MatSlideToggleModule, NewPasswordFields],
  templateUrl: './user-dialog.html',
})
export class UserDialog {
  private readonly users = inject(UsersApi);
  private readonly notify = inject(Notify);
  protected readonly original = inject<UserDialogData>(MAT_DIALOG_DATA).user ?? null;

  protected readonly roles = ROLES;
  protected readonly roleLabel = roleLabel;
  protected readonly roleHints = ROLE_HINTS;

  protected readonly form = inject(FormBuilder).nonNullable.group(
    {
      ...identityControls(this.original ?? {}),
      role: [this.original?.role ?? ('VIEWER' as Role)],
      disabled: [this.original?.disabled ?? false],
      breakGlass: [this.original?.breakGlass ?? false],
      customerIds: [this.original?.customerIds ?? ([] as number[])],
      // Required for a new account; when editing, empty keeps the current password.
      password: ['', this.original ? passwordLength : [Validators.required, passwordLength]],
    },
    { validators: passwordGroup({ password: 'password', identityKeys: ['email', 'username'] }) },
  );
  protected readonly value = toSignal(this.form.valueChanges, { initialValue: this.form.getRawValue() });

  protected readonly customers = toSignal(this.users.customers$, {
    initialValue: LOADING as Loaded<Customer[] | null>,
  });
  /** Grants matter only below ADMIN, and only once the API has customers. */
  protected readonly grantable = computed(() => {
    const customers = this.customers();
    return this.value().role !== 'ADMIN' && customers.state === 'ready' && customers.value !== null;
  });

  protected readonly submission = new DialogSubmission<User>(this.form);

  protected save(): void {
    if (!this.submission.ready()) return;
    const request = this.original ? this.update(this.original) : this.create();
    this.submission.save(request, (err) => this.conflict(err));
  }

  /** A conflict (address taken, last administrator) is the server's rule: say it in its words. */
  private conflict(err: unknown): boolean {
    if (errorStatus(err) !== 409) return false;
    this.notify.refused(err);
    return true;
  }

  private create(): Observable<User> {
    const { name, email, username, role, customerIds, password } = this.form.getRawValue();
    return this.users.create({
      name: name.trim(),
      email: email.trim(),
      ...(username.trim() ? { username: username.trim() } : {}),
      role,
      password,
      ...(this.grantable() ? { customerIds } : {}),
    });
  }

  /** Only the fields that changed; null when nothing did. */
  private update(original: UserRow): Observable<User> | null {
    const value = this.form.getRawValue();
    const changes: UserChanges = {};
    if (value.name.trim() !== original.name) changes.name = value.name.trim();
    if (value.email.trim() !== original.email) changes.email = value.email.trim();
    if (value.username.trim() !== (original.username ?? '')) changes.username = value.username.trim() || null;
    if (value.role !== original.role) changes.role = value.role;
    if (value.disabled !== original.disabled) changes.disabled = value.disabled;
    if (value.role === 'ADMIN' && value.breakGlass !== original.breakGlass) changes.breakGlass = value.breakGlass;
    if (this.grantable() && !sameSet(value.customerIds, original.customerIds)) changes.customerIds = value.customerIds;
    if (value.password) changes.password = value.password;
    return Object.keys(changes).length ? this.users.update(original.id, changes) : null;
  }
}
