import { booleanAttribute, ChangeDetectionStrategy, Component, input } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MatDialogModule } from '@angular/material/dialog';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { ReactiveFormsModule } from '@angular/forms';

import { Submission } from './submission';

/**
 * The foot of every form dialog: the submission's error line (an alert, read out when it appears),
 * then Cancel, which closes without an answer, and the submit button, disabled while busy.
 * Place it inside the dialog's `<form>`, after `<mat-dialog-content>`.
 */
@Component({
  selector: 'argus-dialog-footer',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatDialogModule],
  host: { class: 'dialog-footer' },
  template: `
    @if (submission().error(); as message) {
      <p class="form-error" role="alert">{{ message }}</p>
    }
    <mat-dialog-actions align="end">
      <button mat-button type="button" mat-dialog-close>Cancel</button>
      <button mat-flat-button type="submit" [class.danger]="danger()" [disabled]="submission().busy() || blocked()">
        {{ submit() }}
      </button>
    </mat-dialog-actions>
  `,
  styles: `
    :host {
      display: contents;
    }
    .form-error {
      margin: 0 24px 8px;
    }
    .danger {
      --mat-button-filled-container-color: var(--mat-sys-error);
      --mat-button-filled-label-text-color: var(--mat-sys-on-error);
    }
  `,
})
export class DialogFooter {
  readonly submission = input.required<Submission>();
  /** Label of the submit button, a verb ("Save", "Add customer"). */
  readonly submit = input.required<string>();
  /** The submit button in the error colour, for what cannot be undone ("Turn off"). */
  readonly danger = input(false, { transform: booleanAttribute });
  /** Disables the submit button besides while busy (say, until the choices have loaded). */
  readonly blocked = input(false);
}

/** What every form dialog imports: the dialog parts, the form fields and this footer. Add the rest beside it. */
export const FORM_DIALOG = [
  DialogFooter,
  MatButtonModule,
  MatDialogModule,
  MatFormFieldModule,
  MatInputModule,
  ReactiveFormsModule,
] as const;
