import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';

import { IconButton } from './icon-button';

/**
 * The Edit and Delete icon buttons of a table row or card, labelled with the item so a screen reader (and the
 * e2e tests, which find them by role and name) can tell one row's buttons from the next.
 * Content placed inside goes between the two buttons, where the rules tables keep their Override button.
 */
@Component({
  selector: 'argus-row-actions',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [IconButton],
  template: `
    @if (allowed()) {
      <argus-icon-button
        icon="edit"
        [tooltip]="editVerb()"
        [label]="editVerb() + ' ' + label()"
        (pressed)="edit.emit()"
      />
    }
    <ng-content />
    @if (allowed()) {
      <argus-icon-button icon="delete" tooltip="Delete" [label]="'Delete ' + label()" (pressed)="delete.emit()" />
    }
  `,
  // No box of its own: the buttons lay out as children of the host's cell or flex row, as before.
  styles: `
    :host {
      display: contents;
    }
  `,
})
export class RowActions {
  /** Names the item in the buttons' accessible names: "Edit <label>", "Delete <label>". */
  readonly label = input.required<string>();
  /** Whether the account may change the item; when false only the projected content shows. */
  readonly allowed = input(true);
  /** The edit button's verb, e.g. "Replace" for a secret whose value is never shown. */
  readonly editVerb = input('Edit');
  readonly edit = output();
  readonly delete = output();
}
