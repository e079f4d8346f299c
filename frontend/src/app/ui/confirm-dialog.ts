import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MAT_DIALOG_DATA, MatDialog, MatDialogModule } from '@angular/material/dialog';
import { map, Observable } from 'rxjs';

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
