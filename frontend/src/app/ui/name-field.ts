import { booleanAttribute, ChangeDetectionStrategy, Component, input } from '@angular/core';
import { FormControl } from '@angular/forms';

import { Field } from './field';

/**
 * The Name field of a create or edit dialog (a window, a channel, a rule): required, the server's
 * refusal under it, and the dialog's first focus when `first`. Inside the caller's form element.
 */
@Component({
  selector: 'argus-name-field',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Field],
  host: { style: 'display: contents' },
  template: `<argus-field label="Name" name="name" [control]="control()" missing="Enter a name." [first]="first()" />`,
})
export class NameField {
  readonly control = input.required<FormControl<string>>();
  /** Takes the dialog's first focus. */
  readonly first = input(false, { transform: booleanAttribute });
}
