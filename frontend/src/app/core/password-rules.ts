import { AbstractControl, FormGroupDirective, NgForm, ValidationErrors, ValidatorFn } from '@angular/forms';
import { ErrorStateMatcher } from '@angular/material/core';

// docs/api.md "Passwords": bcrypt reads at most 72 bytes, so the server refuses longer ones instead of truncating.
export const PASSWORD_MIN_CHARS = 12;
export const PASSWORD_MAX_BYTES = 72;

const encoder = new TextEncoder();

export function utf8Bytes(value: string): number {
  return encoder.encode(value).length;
}

/** Characters as a person counts them (code points), so "🔒" counts once. */
export function charCount(value: string): number {
  return Array.from(value).length;
}

/** True when the password equals one of the account's identifiers (e-mail, username); compared case-insensitively. */
export function matchesIdentity(password: string, identities: readonly (string | null | undefined)[]): boolean {
  const candidate = password.toLowerCase();
  return candidate !== '' && identities.some((id) => !!id && id.toLowerCase() === candidate);
}

/** Control validator for the length rules: `{passwordTooShort}` or `{passwordTooLong}`. */
export const passwordLength: ValidatorFn = (control: AbstractControl<string>): ValidationErrors | null => {
  const value = control.value ?? '';
  if (value === '') return null;
  if (charCount(value) < PASSWORD_MIN_CHARS) return { passwordTooShort: true };
  if (utf8Bytes(value) > PASSWORD_MAX_BYTES) return { passwordTooLong: true };
  return null;
};

/**
 * Group validator for the rules that need sibling fields: `{passwordIsIdentity}` when the password
 * equals one of `identityKeys`' values (or a fixed identity of the signed-in account), `{passwordMismatch}`
 * when `confirmKey` is given and differs.
 */
export function passwordGroup(options: {
  password: string;
  confirm?: string;
  identityKeys?: readonly string[];
  identities?: () => readonly (string | null | undefined)[];
}): ValidatorFn {
  return (group: AbstractControl): ValidationErrors | null => {
    const password: string = group.get(options.password)?.value ?? '';
    const identities = [
      ...(options.identityKeys ?? []).map((key) => group.get(key)?.value as string | undefined),
      ...(options.identities?.() ?? []),
    ];
    const errors: ValidationErrors = {};
    if (matchesIdentity(password, identities)) errors['passwordIsIdentity'] = true;
    if (options.confirm) {
      const confirm: string = group.get(options.confirm)?.value ?? '';
      if (confirm !== '' && confirm !== password) errors['passwordMismatch'] = true;
    }
    return Object.keys(errors).length ? errors : null;
  };
}

/** Shows a field as invalid when the parent form carries `groupError`, not only when the field itself is invalid. */
export class GroupErrorMatcher implements ErrorStateMatcher {
  constructor(private readonly groupError: string) {}

  isErrorState(control: AbstractControl | null, form: FormGroupDirective | NgForm | null): boolean {
    if (!control) return false;
    const shown = control.touched || !!form?.submitted;
    return shown && (control.invalid || !!control.parent?.hasError(this.groupError));
  }
}
