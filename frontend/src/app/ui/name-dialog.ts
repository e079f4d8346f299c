import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { FormBuilder, Validators } from '@angular/forms';
import { MAT_DIALOG_DATA, MatDialog } from '@angular/material/dialog';
import { filter, map, Observable } from 'rxjs';
import { DialogSubmission } from '@console/ui/submission';
import { FORM_DIALOG } from '@console/ui/dialog-footer';

/** Wrapped, so that an empty answer (204) still tells "saved" apart from "cancelled". */
interface Saved<T> {
  value: T;
}

export interface NameDialogData<T> {
  title: string;
  label: string;
  /** The current name; empty to create something. */
  value?: string;
  hint?: string;
  /** Label of the saving button ("Rename", "Add cluster"). */
  confirm: string;
  /** Sends the name; the dialog stays open and shows the refusal when this fails. */
  save: (name: string) => Observable<T>;
}

/** Asks for one name (rename a system, add or rename a cluster) and saves it; closes with the answer. */
@Component({
  selector: 'argus-name-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [FORM_DIALOG],
  template: `
    <h2 mat-dialog-title>{{ data.title }}</h2>
    <form [formGroup]="form" (ngSubmit)="save()">
      <mat-dialog-content class="argus-form">
        <mat-form-field>
          <mat-label>{{ data.label }}</mat-label>
          <input matInput formControlName="name" required cdkFocusInitial autocomplete="off" />
          @if (data.hint) {
            <mat-hint>{{ data.hint }}</mat-hint>
          }
          @if (form.controls.name.hasError('server')) {
            <mat-error>{{ form.controls.name.getError('server') }}</mat-error>
          } @else {
            <mat-error>Enter a name (up to 200 characters).</mat-error>
          }
        </mat-form-field>
      </mat-dialog-content>
      <argus-dialog-footer [submission]="submission" [submit]="data.confirm" />
    </form>
  `,
})
export class NameDialog<T> {
  protected readonly data = inject<NameDialogData<T>>(MAT_DIALOG_DATA);

  protected readonly form = inject(FormBuilder).nonNullable.group({
    name: [this.data.value ?? '', [Validators.required, Validators.maxLength(200), Validators.pattern(/\S/)]],
  });
  protected readonly submission = new DialogSubmission<Saved<T>>(this.form);

  protected save(): void {
    if (!this.submission.ready()) return;
    const name = this.form.getRawValue().name.trim();
    const unchanged = name === this.data.value;
    this.submission.save(unchanged ? null : this.data.save(name).pipe(map((value) => ({ value }))));
  }
}

/** Opens the dialog and emits the save's answer once it succeeded (nothing when cancelled or unchanged). */
export function askName<T>(dialog: MatDialog, data: NameDialogData<T>): Observable<T> {
  return dialog
    .open<NameDialog<T>, NameDialogData<T>, Saved<T>>(NameDialog, { data, width: '440px' })
    .afterClosed()
    .pipe(
      filter((saved): saved is Saved<T> => saved !== undefined),
      map((saved) => saved.value),
    );
}
