import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';

import { Icon } from './icon';

/**
 * The head of a page: its heading, a line saying what the page is for (the projected content),
 * and, where the account may add one, the button that adds an item (`add` is its label; none: no button).
 */
@Component({
  selector: 'argus-page-header',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon, MatButtonModule],
  host: { style: 'display: block' },
  template: `
    <header class="page-header page-header--actions">
      <div>
        <h1>{{ heading() }}</h1>
        <p><ng-content /></p>
      </div>
      @if (add(); as label) {
        <button mat-flat-button type="button" (click)="added.emit()">
          <argus-icon matButtonIcon name="add" />{{ label }}
        </button>
      }
    </header>
  `,
})
export class PageHeader {
  readonly heading = input.required<string>();
  /** The add button's label ("Add user"); null or empty while the account may not add. */
  readonly add = input<string | null>(null);
  readonly added = output();
}
