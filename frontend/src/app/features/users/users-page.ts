import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatTableModule } from '@angular/material/table';
import { Router } from '@angular/router';

import { AuthService, roleLabel } from '@console/core/auth';
import { Loaded, LOADING } from '@console/core/loaded';
import { UserDialog, UserDialogData } from './user-dialog';
import { User, UserRow, UsersApi } from './users-api';
import { CardTable } from '@console/ui/card-table';
import { ConfirmThen } from '@console/ui/confirm-dialog';
import { FormDialog } from '@console/ui/form-dialog';
import { LoadState } from '@console/ui/load-state';
import { RowActions } from '@console/ui/row-actions';
import { PageHeader } from '@console/ui/page-header';
import { injectNow, TimeAgo } from '@console/ui/time-ago';

/** Accounts of this Argus (ADMIN): list, add, edit, delete. */
@Component({
  selector: 'argus-users-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PageHeader, CardTable, LoadState, MatButtonModule, MatTableModule, RowActions, TimeAgo],
  templateUrl: './users-page.html',
  styleUrl: './users-page.scss',
})
export class UsersPage {
  private readonly usersApi = inject(UsersApi);
  private readonly confirmThen = inject(ConfirmThen);
  private readonly formDialog = inject(FormDialog);
  private readonly router = inject(Router);
  protected readonly auth = inject(AuthService);

  protected readonly users = toSignal(this.usersApi.users$, { initialValue: LOADING as Loaded<UserRow[]> });
  protected readonly columns = [
    'name',
    'email',
    'username',
    'role',
    'twoFactor',
    'status',
    'customers',
    'source',
    'lastSignIn',
    'actions',
  ];
  protected readonly roleLabel = roleLabel;
  private readonly sources: Record<UserRow['source'], string> = {
    local: 'Local',
    sso: 'SSO',
    both: 'Local + SSO',
  };
  protected readonly now = injectNow(60_000);

  /** How the account signs in: with a password, through the identity provider, or both. */
  protected sourceLabel(user: UserRow): string {
    return this.sources[user.source];
  }

  protected add(): void {
    this.openDialog({}, (user) => `${user.name} added`);
  }

  protected edit(user: UserRow): void {
    this.openDialog({ user }, () => 'Changes saved');
  }

  protected remove(user: UserRow): void {
    const self = user.id === this.auth.user()?.id;
    // A 409 ("The last active administrator cannot be deleted…") shows in the server's words.
    this.confirmThen.delete({
      name: user.name,
      message: self
        ? 'This is your own account: you will be signed out at once. This cannot be undone.'
        : `${user.email} can no longer sign in, and their API tokens stop working. This cannot be undone.`,
      action: () => this.usersApi.remove(user.id),
      done: `${user.name} deleted`,
    });
  }

  private openDialog(data: UserDialogData, done: (user: User) => string): void {
    this.formDialog.open(UserDialog, { data, width: '520px', autoFocus: 'first-tabbable' }, done, (user: User) => {
      if (user.id === this.auth.user()?.id) this.ownAccountChanged();
    });
  }

  /** The shell shows the own name and role: refresh them; an administrator who stepped down leaves this page. */
  private ownAccountChanged(): void {
    this.auth.loadMe().subscribe((me) => {
      if (me && me.role !== 'ADMIN') void this.router.navigateByUrl('/');
    });
  }
}
