import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MatTooltipModule } from '@angular/material/tooltip';

import { Icon, IconName } from './icon';

/**
 * A button that shows only an icon: the tooltip says the verb, and the accessible name says the verb
 * and what it acts on ("Copy the enrollment key of prod"), so a screen reader (and the e2e tests, which
 * find buttons by role and name) tells one row's button from the next.
 */
@Component({
  selector: 'argus-icon-button',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon, MatButtonModule, MatTooltipModule],
  // no box of its own: the button lays out as a child of the host's cell or flex row
  host: { style: 'display: contents' },
  template: `
    <button
      mat-icon-button
      type="button"
      [matTooltip]="tooltip()"
      [attr.aria-label]="label()"
      [disabled]="disabled()"
      (click)="pressed.emit()"
    >
      <argus-icon [name]="icon()" />
    </button>
  `,
})
export class IconButton {
  readonly icon = input.required<IconName>();
  /** The verb, shown on hover and focus ("Delete"). */
  readonly tooltip = input.required<string>();
  /** The accessible name: the verb and its object ("Delete prod"). */
  readonly label = input.required<string>();
  readonly disabled = input(false);
  readonly pressed = output();
}
