import { booleanAttribute, ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';

import { Icon } from './icon';

/**
 * The head of a page: its heading, a line under it (the projected content) and on the right, where
 * the account may, what it may do. A list page says what it is for and offers the button that adds
 * an item (`add` is its label; none: no button). A page of one thing (a system, a check, an alert)
 * names it, with its state beside the name (the projected element marked `pill`), and where the
 * account may act (`actions`) shows the projected buttons followed, when `deletable`, by Delete.
 */
@Component({
  selector: 'argus-page-header',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon, MatButtonModule],
  host: { style: 'display: block' },
  template: `
    <header class="page-header page-header--actions">
      <div>
        <h1 class="title">
          <span>{{ heading() }}</span>
          <ng-content select="[pill]" />
        </h1>
        <p><ng-content /></p>
      </div>
      @if (add(); as label) {
        <button mat-flat-button type="button" (click)="added.emit()">
          <argus-icon matButtonIcon name="add" />{{ label }}
        </button>
      }
      @if (actions()) {
        <div class="actions" data-testid="actions">
          <ng-content select="button" />
          @if (deletable()) {
            <button mat-stroked-button type="button" class="danger" (click)="deleted.emit()">
              <argus-icon matButtonIcon name="delete" />Delete
            </button>
          }
        </div>
      }
    </header>
  `,
  styles: `
    .title {
      display: flex;
      align-items: center;
      flex-wrap: wrap;
      gap: 12px;
    }
    .actions {
      display: flex;
      flex-wrap: wrap;
      gap: 8px;
    }
    .danger {
      --mat-button-outlined-label-text-color: var(--mat-sys-error);
    }
  `,
})
export class PageHeader {
  readonly heading = input.required<string>();
  /** The add button's label ("Add user"); null or empty while the account may not add. */
  readonly add = input<string | null>(null);
  readonly added = output();
  /** The account may act on the page's thing: the projected buttons (and Delete) are shown. */
  readonly actions = input(false, { transform: booleanAttribute });
  readonly deletable = input(false, { transform: booleanAttribute });
  readonly deleted = output();
}
