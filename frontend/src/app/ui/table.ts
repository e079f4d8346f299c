import { booleanAttribute, ChangeDetectionStrategy, Component, input } from '@angular/core';

import { CardTable } from './card-table';

/**
 * The console's data table, written once: a scrolling box, the table (a card a row on a phone, see
 * `CardTable`), its name for screen readers, and the header row of `columns`, the last one read out
 * only when `actions` names it. The page projects its `<tbody>` (and `<tfoot>`): its rows and cells
 * keep the page's own styles.
 */
@Component({
  selector: 'argus-table',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CardTable],
  host: { class: 'table-scroll', style: 'display: block' },
  template: `
    <table
      argusCardTable
      [class.argus-table]="ruled()"
      [attr.aria-label]="label() ?? null"
      [attr.aria-labelledby]="labelledBy() ?? null"
    >
      <thead>
        <tr>
          @for (column of columns(); track $index) {
            <th scope="col">{{ column }}</th>
          }
          @if (actions(); as hidden) {
            <th scope="col">
              <span class="sr-only">{{ hidden }}</span>
            </th>
          }
        </tr>
      </thead>
      <ng-content />
    </table>
  `,
})
export class Table {
  /** The visible column names, in order. */
  readonly columns = input.required<readonly string[]>();
  /** The table's accessible name ("Audit log"), unless `labelledBy` names the heading that says it. */
  readonly label = input<string>();
  /** The id of the heading that names the table. */
  readonly labelledBy = input<string>();
  /** A last column of row buttons, named for screen readers only ("Actions"). */
  readonly actions = input<string>();
  /** The console's ruled look (styles.scss `table.argus-table`), as the rules and maintenance tables have. */
  readonly ruled = input(false, { transform: booleanAttribute });
}
