import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatSelectModule } from '@angular/material/select';

import { Customer } from './customers-api';

/**
 * The Customer picker of a page's filter bar (alerts, audit log, availability): the customers by
 * name, with `all` first when the page may show every customer at once.
 */
@Component({
  selector: 'argus-customer-select',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatFormFieldModule, MatSelectModule],
  host: { style: 'display: contents' },
  template: `
    <mat-form-field subscriptSizing="dynamic">
      <mat-label>Customer</mat-label>
      <mat-select [value]="value()" (selectionChange)="changed.emit($event.value)" [attr.data-testid]="testid()">
        @if (all(); as all) {
          <mat-option [value]="null">{{ all }}</mat-option>
        }
        @for (c of customers(); track c.id) {
          <mat-option [value]="c.id">{{ c.name }}</mat-option>
        }
      </mat-select>
    </mat-form-field>
  `,
})
export class CustomerSelect {
  readonly customers = input.required<readonly Pick<Customer, 'id' | 'name'>[]>();
  readonly value = input<number | null>(null);
  /** The label of the choice of every customer ("All customers"); none: one must be picked. */
  readonly all = input<string | null>(null);
  /** The select's `data-testid`. */
  readonly testid = input.required<string>();
  readonly changed = output<number | null>();
}
