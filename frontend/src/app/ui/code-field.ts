import { ChangeDetectionStrategy, Component, ElementRef, input, viewChild } from '@angular/core';
import { FormControl, ReactiveFormsModule } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';

/**
 * The 6-digit code of an authenticator app (sign-in, turning two-factor on): numeric keyboard,
 * offered by the browser from a one-time-code message, spaces allowed. Under it the server's refusal,
 * else what is missing or wrong. The control carries `Validators.required` and `sixDigits`.
 */
@Component({
  selector: 'argus-code-field',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatFormFieldModule, MatInputModule, ReactiveFormsModule],
  host: { style: 'display: contents' },
  template: `
    <mat-form-field>
      <mat-label>Code</mat-label>
      <input
        #code
        matInput
        name="code"
        [formControl]="control()"
        inputmode="numeric"
        autocomplete="one-time-code"
        maxlength="7"
        required
      />
      @if (control().hasError('server')) {
        <mat-error>{{ control().getError('server') }}</mat-error>
      } @else if (control().hasError('required')) {
        <mat-error>Enter the code.</mat-error>
      } @else {
        <mat-error>The code has 6 digits.</mat-error>
      }
    </mat-form-field>
  `,
})
export class CodeField {
  readonly control = input.required<FormControl<string>>();
  private readonly input = viewChild.required<ElementRef<HTMLInputElement>>('code');

  focus(): void {
    this.input().nativeElement.focus();
  }
}
