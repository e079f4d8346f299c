import { ChangeDetectionStrategy, Component, Injectable, inject } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MAT_DIALOG_DATA, MatDialog, MatDialogModule } from '@angular/material/dialog';
import { Router } from '@angular/router';
import { filter, map, Observable, switchMap } from 'rxjs';

import { Notify } from './notify';

export interface ConfirmOptions {
  title: string;
  message: string;
  /** Label of the confirming button, a verb ("Revoke", "Delete"). */
  confirm: string;
}

/** Asks before something that cannot be undone; the confirming button is the destructive one, focus starts on Cancel. */
@Component({
  selector: 'argus-confirm-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatDialogModule],
  template: `
    <h2 mat-dialog-title>{{ data.title }}</h2>
    <mat-dialog-content>
      <p>{{ data.message }}</p>
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      <button mat-button [mat-dialog-close]="false" cdkFocusInitial>Cancel</button>
      <button mat-flat-button class="danger" [mat-dialog-close]="true">{{ data.confirm }}</button>
    </mat-dialog-actions>
  `,
  styles: `
    .danger {
      --mat-button-filled-container-color: var(--mat-sys-error);
      --mat-button-filled-label-text-color: var(--mat-sys-on-error);
    }
  `,
})
export class ConfirmDialog {
  protected readonly data = inject<ConfirmOptions>(MAT_DIALOG_DATA);
}

/** Opens the confirmation and emits true only when the user confirmed. */
export function confirmAction(dialog: MatDialog, options: ConfirmOptions): Observable<boolean> {
  return dialog
    .open<ConfirmDialog, ConfirmOptions, boolean>(ConfirmDialog, { data: options, width: '440px', role: 'alertdialog' })
    .afterClosed()
    .pipe(map((confirmed) => confirmed === true));
}

/** Something that cannot be undone: what to ask, what to run once confirmed, what to say when done. */
export interface ConfirmedAction<T> extends ConfirmOptions {
  action: () => Observable<T>;
  /** The snack bar's sentence once the action succeeded. */
  done: string | ((value: T) => string);
  /** What the page does besides with the answer (most pages refresh from the change event instead). */
  then?: (value: T) => void;
}

/** A deletion: what the title names, what follows from it, the request, and what to say once done. */
export type Deletion<T> = Omit<ConfirmedAction<T>, 'title' | 'confirm'> & {
  name: string;
  /** The page to go to once deleted (the deleted thing's own page is gone). */
  leaveTo?: string;
};

/** The console's one confirm → run → snack bar sequence (delete, revoke, replace a key); a refusal shows in the snack bar. */
@Injectable({ providedIn: 'root' })
export class ConfirmThen {
  private readonly dialog = inject(MatDialog);
  private readonly notify = inject(Notify);
  private readonly router = inject(Router);

  /** Deletes `name`'s thing once confirmed: the dialog asks "Delete <name>?" and its button says Delete. */
  delete<T>(deletion: Deletion<T>): void {
    const { name, leaveTo, then, ...rest } = deletion;
    const leave = (value: T) => {
      then?.(value);
      if (leaveTo !== undefined) void this.router.navigateByUrl(leaveTo);
    };
    this.run({ ...rest, then: leave, title: `Delete ${name}?`, confirm: 'Delete' });
  }

  run<T>(confirmed: ConfirmedAction<T>): void {
    const { action, done, then, ...options } = confirmed;
    confirmAction(this.dialog, options)
      .pipe(
        filter(Boolean),
        switchMap(() => action()),
      )
      .subscribe({
        next: (value) => {
          then?.(value);
          this.notify.done(typeof done === 'string' ? done : done(value));
        },
        error: (err: unknown) => this.notify.refused(err),
      });
  }
}
