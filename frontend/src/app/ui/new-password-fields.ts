import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { FormControl, ReactiveFormsModule } from '@angular/forms';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { startWith, switchMap } from 'rxjs';

import { GroupErrorMatcher } from '@console/core/password-rules';
import { PasswordRules } from './password-rules';

let nextId = 0;

/**
 * A new password as setup, the reset link, the account's password form and the user dialog ask
 * for it: the field, the rules checklist it is described by, and (where given) its confirmation.
 * The form's group carries the rules that need siblings (core/password-rules `passwordGroup`):
 * the identity error shows on the password, the mismatch on the confirmation.
 */
@Component({
  selector: 'argus-new-password-fields',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatFormFieldModule, MatInputModule, PasswordRules, ReactiveFormsModule],
  template: `
    @let field = password();
    <mat-form-field subscriptSizing="dynamic" class="long-hint">
      <mat-label>{{ label() }}</mat-label>
      <input
        matInput
        type="password"
        [name]="name()"
        [formControl]="field"
        autocomplete="new-password"
        [required]="required()"
        [errorStateMatcher]="passwordMatcher"
        [attr.aria-describedby]="showRules() ? rulesId : null"
      />
      @if (hint(); as hint) {
        <mat-hint>{{ hint }}</mat-hint>
      }
      @if (field.hasError('required')) {
        <mat-error>{{ missing() }}</mat-error>
      } @else if (field.hasError('passwordTooShort') || field.hasError('passwordTooLong')) {
        <mat-error>Follow the password rules below.</mat-error>
      } @else if (field.hasError('server')) {
        <mat-error>{{ field.getError('server') }}</mat-error>
      } @else {
        <mat-error>The password must differ from the e-mail address and username.</mat-error>
      }
    </mat-form-field>
    @if (showRules()) {
      <argus-password-rules [id]="rulesId" [password]="typed()" [identities]="identities()" />
    }
    @if (confirm(); as confirm) {
      <mat-form-field>
        <mat-label>{{ confirmLabel() }}</mat-label>
        <input
          matInput
          type="password"
          name="confirm"
          [formControl]="confirm"
          autocomplete="new-password"
          required
          [errorStateMatcher]="confirmMatcher"
        />
        @if (confirm.hasError('required')) {
          <mat-error>Repeat the password.</mat-error>
        } @else {
          <mat-error>The passwords do not match.</mat-error>
        }
      </mat-form-field>
    }
  `,
  styles: `
    :host {
      display: contents;
    }
  `,
})
export class NewPasswordFields {
  readonly password = input.required<FormControl<string>>();
  /** The confirmation's control; none, no confirmation field (the user dialog). */
  readonly confirm = input<FormControl<string> | null>(null);
  /** The field's name (what a password manager and the specs know it by). */
  readonly name = input('password');
  readonly label = input('Password');
  readonly confirmLabel = input('Confirm password');
  /** What the required error says. */
  readonly missing = input('Choose a password.');
  readonly hint = input<string | null>(null);
  readonly required = input(true);
  readonly showRules = input(true);
  /** The account's e-mail and username for the rules checklist; empty when unknown (reset link). */
  readonly identities = input<readonly (string | null | undefined)[]>([]);

  protected readonly rulesId = `argus-password-rules-${nextId++}`;
  protected readonly passwordMatcher = new GroupErrorMatcher('passwordIsIdentity');
  protected readonly confirmMatcher = new GroupErrorMatcher('passwordMismatch');
  private readonly value = toSignal(
    toObservable(this.password).pipe(switchMap((control) => control.valueChanges.pipe(startWith(control.value)))),
    { initialValue: '' },
  );
  protected readonly typed = computed(() => this.value() ?? '');
}
