import { AbstractControl, ValidationErrors } from '@angular/forms';

/** What a username may be; the server checks the same (backend auth schema). */
export const USERNAME_PATTERN = /^[A-Za-z0-9._-]{2,64}$/;
export const USERNAME_RULE = '2 to 64 letters, digits, dots, dashes or underscores.';

/**
 * Optional username. It can never contain "@": a sign-in identifier with "@" is matched against
 * e-mail addresses (docs/api.md, reset-password script).
 */
export function usernameValidator(control: AbstractControl<string>): ValidationErrors | null {
  const value = (control.value ?? '').trim();
  return value === '' || USERNAME_PATTERN.test(value) ? null : { username: true };
}

/** A 6-digit one-time code; spaces a user pastes from an authenticator ("123 456") are ignored. */
export function sixDigits(control: AbstractControl<string>): ValidationErrors | null {
  const digits = (control.value ?? '').replace(/\s/g, '');
  return digits === '' || /^\d{6}$/.test(digits) ? null : { sixDigits: true };
}
