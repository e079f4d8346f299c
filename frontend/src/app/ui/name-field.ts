import { booleanAttribute, ChangeDetectionStrategy, Component, input } from '@angular/core';
import { FormControl, ReactiveFormsModule } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

/**
 * The Name field of a create or edit dialog (a window, a channel, a rule): required, the server's
 * refusal under it, and the dialog's first focus when `first`. Inside the caller's form element.
 */
@Component({
  selector: 'argus-name-field',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatFormFieldModule, MatInputModule, ReactiveFormsModule],
  host: { style: 'display: contents' },
  template: `
    <mat-form-field>
      <mat-label>Name</mat-label>
      <input
        matInput
        name="name"
        [formControl]="control()"
        autocomplete="off"
        [attr.cdkFocusInitial]="first() ? '' : null"
      />
      <mat-error>{{ control().getError('server') ?? 'Enter a name.' }}</mat-error>
    </mat-form-field>
  `,
})
export class NameField {
  readonly control = input.required<FormControl<string>>();
  /** Takes the dialog's first focus. */
  readonly first = input(false, { transform: booleanAttribute });
}
