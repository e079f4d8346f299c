import { HttpErrorResponse } from '@angular/common/http';
import { FormGroup } from '@angular/forms';

import type { ErrorBody } from '@contracts/common';

/**
 * Error body of every Argus endpoint (docs/api.md, contracts/common.ts): `details.field` names the
 * offending field of a 400. The contract says only "a record" of details; the console reads `field`.
 */
export type ApiErrorBody = Omit<ErrorBody, 'details'> & { details?: { field?: string } & Record<string, unknown> };

function body(err: unknown): Partial<ApiErrorBody> {
  if (!(err instanceof HttpErrorResponse) || typeof err.error !== 'object' || err.error === null) return {};
  return err.error as Partial<ApiErrorBody>;
}

/** The HTTP status of a failed request, or 0 when it never got an answer. */
export function errorStatus(err: unknown): number {
  return err instanceof HttpErrorResponse ? err.status : 0;
}

/** The stable `code` of an API refusal (docs/api.md), e.g. 'invalid_code'; null when there is none. */
export function errorCode(err: unknown): string | null {
  const code = body(err).code;
  return typeof code === 'string' ? code : null;
}

/** A sentence for the user: the server's own message when it sent one, else a description of what went wrong. */
export function errorMessage(err: unknown, fallback = 'Something went wrong. Please try again.'): string {
  const status = errorStatus(err);
  if (status === 0) return 'Argus cannot be reached. Check your connection and try again.';
  if (status === 429) {
    const seconds = Number((err as HttpErrorResponse).headers.get('Retry-After'));
    if (Number.isFinite(seconds) && seconds > 0) {
      const wait = seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`;
      return `Too many attempts. Try again in ${wait}.`;
    }
    return 'Too many attempts. Try again later.';
  }
  const message = body(err).error;
  return typeof message === 'string' && message ? message : fallback;
}

/**
 * Puts a 400's message on the form control its `details.field` names, so it shows under that field.
 * Returns false when the error names no control of this form (show it as a form-level error instead).
 */
export function applyFieldError(form: FormGroup, err: unknown): boolean {
  const field = body(err).details?.field;
  if (typeof field !== 'string') return false;
  const control = form.get(field);
  if (!control) return false;
  // The server names the field first ("email: must be an e-mail address"); under the field that is said already.
  const message = errorMessage(err).replace(`${field}: `, '');
  control.setErrors({ ...control.errors, server: message.charAt(0).toUpperCase() + message.slice(1) });
  control.markAsTouched();
  return true;
}
