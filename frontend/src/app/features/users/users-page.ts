import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatSnackBar } from '@angular/material/snack-bar';
import { MatTableModule } from '@angular/material/table';
import { MatTooltipModule } from '@angular/material/tooltip';
import { Router } from '@angular/router';
import { filter, switchMap } from 'rxjs';

import { errorMessage } from '../../core/api-error';
import { AuthService, roleLabel } from '../../core/auth';
import { Loaded, LOADING } from '../../core/loaded';
import { confirmAction } from '../../ui/confirm-dialog';
import { Icon } from '../../ui/icon';
import { UserDialog, UserDialogData } from './user-dialog';
import { UserRow, UsersApi } from './users-api';
import { CardTable } from '../../ui/card-table';

/** Accounts of this Argus (ADMIN): list, add, edit, delete. */
@Component({
  selector: 'argus-users-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CardTable, Icon, MatButtonModule, MatProgressBarModule, MatTableModule, MatTooltipModule],
  templateUrl: './users-page.html',
  styleUrl: './users-page.scss',
})
export class UsersPage {
  private readonly usersApi = inject(UsersApi);
  private readonly dialog = inject(MatDialog);
  private readonly snackBar = inject(MatSnackBar);
  private readonly router = inject(Router);
  protected readonly auth = inject(AuthService);

  protected readonly users = toSignal(this.usersApi.users$, { initialValue: LOADING as Loaded<UserRow[]> });
  protected readonly columns = ['name', 'email', 'username', 'role', 'twoFactor', 'status', 'customers', 'actions'];
  protected readonly roleLabel = roleLabel;

  protected add(): void {
    this.openDialog({}, (user) => `${user.name} added`);
  }

  protected edit(user: UserRow): void {
    this.openDialog({ user }, () => 'Changes saved');
  }

  protected remove(user: UserRow): void {
    const self = user.id === this.auth.user()?.id;
    confirmAction(this.dialog, {
      title: `Delete ${user.name}?`,
      message: self
        ? 'This is your own account: you will be signed out at once. This cannot be undone.'
        : `${user.email} can no longer sign in, and their API tokens stop working. This cannot be undone.`,
      confirm: 'Delete',
    })
      .pipe(
        filter(Boolean),
        switchMap(() => this.usersApi.remove(user.id)),
      )
      .subscribe({
        next: () => this.snackBar.open(`${user.name} deleted`, undefined, { duration: 4000 }),
        // 409 "The last active administrator cannot be deleted…" and any other refusal, in the server's words.
        error: (err: unknown) => this.snackBar.open(errorMessage(err), 'Dismiss', { duration: 10000 }),
      });
  }

  private openDialog(data: UserDialogData, done: (user: UserRow) => string): void {
    this.dialog
      .open<UserDialog, UserDialogData, UserRow>(UserDialog, { data, width: '520px', autoFocus: 'first-tabbable' })
      .afterClosed()
      .pipe(filter((user): user is UserRow => !!user))
      .subscribe((user) => {
        this.snackBar.open(done(user), undefined, { duration: 4000 });
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
