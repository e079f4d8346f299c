import { booleanAttribute, ChangeDetectionStrategy, Component, input } from '@angular/core';
import { FormControl, ReactiveFormsModule } from '@angular/forms';
import { MatFormFieldModule, SubscriptSizing } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSelectModule } from '@angular/material/select';

/** One option of a field that picks a value: the value the control takes and the words shown for it. */
export interface Choice {
  readonly value: unknown;
  readonly label: string;
}

/** The choices of a list of values, each shown by its label (or as it is, without labels). */
export function choicesOf<T extends string>(values: readonly T[], labels?: Readonly<Record<T, string>>): Choice[] {
  return values.map((value) => ({ value, label: labels ? labels[value] : value }));
}

/** The choices of named items (customers, clusters): the id is the value, the name is shown. */
export function namedChoices(items: readonly { readonly id: unknown; readonly name: string }[]): Choice[] {
  return items.map((item) => ({ value: item.id, label: item.name }));
}

/**
 * One plain input of a form, or with `options` a pick of one of them (first, where `none` is given,
 * a choice of null in those words): its label, an optional hint, and under it the server's refusal
 * of the value or, when it is missing or out of range, `missing`. Inside the caller's form element.
 */
@Component({
  selector: 'argus-field',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatFormFieldModule, MatInputModule, MatSelectModule, ReactiveFormsModule],
  // a block of its own, so that a `.form-row` lays it out as it does a bare form field
  host: { style: 'display: block' },
  template: `
    <mat-form-field [subscriptSizing]="subscriptSizing()">
      <mat-label>{{ label() }}</mat-label>
      @if (options(); as options) {
        <mat-select
          [formControl]="control()"
          [canSelectNullableOptions]="nullSelectable()"
          [attr.data-testid]="testid()"
        >
          @if (none(); as none) {
            <mat-option [value]="null">{{ none }}</mat-option>
          }
          @for (choice of options; track choice.value) {
            <mat-option [value]="choice.value">{{ choice.label }}</mat-option>
          }
        </mat-select>
      } @else if (type() === 'number') {
        <!-- a number's own input: Angular reads it as a number only with the type written out -->
        <input
          matInput
          type="number"
          [formControl]="control()"
          autocomplete="off"
          [attr.min]="min()"
          [attr.max]="max()"
          [attr.placeholder]="placeholder()"
          [attr.data-testid]="testid()"
        />
      } @else {
        <input
          matInput
          [type]="type()"
          [formControl]="control()"
          autocomplete="off"
          [name]="name() ?? ''"
          [attr.placeholder]="placeholder()"
          [attr.data-testid]="testid()"
          [attr.cdkFocusInitial]="first() ? '' : null"
        />
      }
      @if (hint(); as hint) {
        <mat-hint>{{ hint }}</mat-hint>
      }
      <mat-error>{{ control().getError('server') ?? missing() }}</mat-error>
    </mat-form-field>
  `,
})
export class Field {
  readonly label = input.required<string>();
  readonly control = input.required<FormControl<unknown>>();
  readonly type = input<'text' | 'number' | 'url' | 'password' | 'datetime-local'>('text');
  readonly min = input<number | null>(null);
  readonly max = input<number | null>(null);
  readonly placeholder = input<string | null>(null);
  readonly hint = input<string | null>(null);
  /** What to say when the value is missing or out of range (the server's refusal comes first). */
  readonly missing = input<string | null>(null);
  /** The choices: the field picks one of them instead of taking text. */
  readonly options = input<readonly Choice[] | null>(null);
  /** The words of a null choice listed first; null: no such choice. */
  readonly none = input<string | null>(null);
  /** Shows the null choice's words once picked, instead of an empty field. */
  readonly nullSelectable = input(false, { transform: booleanAttribute });
  readonly testid = input<string | null>(null);
  /** The input's name, for the browser's autofill. */
  readonly name = input<string | null>(null);
  /** Takes the dialog's first focus (a text input only). */
  readonly first = input(false, { transform: booleanAttribute });
  /** `dynamic` for a hint longer than the field is wide. */
  readonly subscriptSizing = input<SubscriptSizing>('fixed');
}
