import { ComponentType } from '@angular/cdk/portal';
import { Injectable, inject } from '@angular/core';
import { MatDialog, MatDialogConfig } from '@angular/material/dialog';
import { filter } from 'rxjs';

import { Notify } from './notify';

/** Opens a form dialog (create or edit); once it closed with what it saved, says so in the snack bar. */
@Injectable({ providedIn: 'root' })
export class FormDialog {
  private readonly dialog = inject(MatDialog);
  private readonly notify = inject(Notify);

  /** `then` is what the page does besides with what was saved. */
  open<D, R>(
    component: ComponentType<unknown>,
    config: MatDialogConfig<D>,
    done: string | ((saved: R) => string),
    then?: (saved: R) => void,
  ): void {
    this.dialog
      .open<unknown, D, R>(component, config)
      .afterClosed()
      .pipe(filter((saved): saved is R => !!saved))
      .subscribe((saved) => {
        this.notify.done(typeof done === 'string' ? done : done(saved));
        then?.(saved);
      });
  }
}
