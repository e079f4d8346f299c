import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { FormControl, ReactiveFormsModule } from '@angular/forms';
import { MatFormFieldModule, SubscriptSizing } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

/**
 * One plain input of a form: its label, an optional hint, and under it the server's refusal of the
 * value or, when it is missing or out of range, `missing`. Inside the caller's form element.
 */
@Component({
  selector: 'argus-field',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatFormFieldModule, MatInputModule, ReactiveFormsModule],
  // a block of its own, so that a `.form-row` lays it out as it does a bare form field
  host: { style: 'display: block' },
  template: `
    <mat-form-field [subscriptSizing]="subscriptSizing()">
      <mat-label>{{ label() }}</mat-label>
      <!-- a number's own input: Angular reads it as a number only with the type written out -->
      @if (type() === 'number') {
        <input
          matInput
          type="number"
          [formControl]="control()"
          autocomplete="off"
          [attr.min]="min()"
          [attr.max]="max()"
          [attr.placeholder]="placeholder()"
        />
      } @else {
        <input
          matInput
          [type]="type()"
          [formControl]="control()"
          autocomplete="off"
          [attr.placeholder]="placeholder()"
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
  readonly control = input.required<FormControl<string> | FormControl<number> | FormControl<number | null>>();
  readonly type = input<'text' | 'number' | 'url'>('text');
  readonly min = input<number | null>(null);
  readonly max = input<number | null>(null);
  readonly placeholder = input<string | null>(null);
  readonly hint = input<string | null>(null);
  /** What to say when the value is missing or out of range (the server's refusal comes first). */
  readonly missing = input<string | null>(null);
  /** `dynamic` for a hint longer than the field is wide. */
  readonly subscriptSizing = input<SubscriptSizing>('fixed');
}
