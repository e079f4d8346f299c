import { inject, signal } from '@angular/core';
import { FormGroup } from '@angular/forms';
import { MatDialogRef } from '@angular/material/dialog';
import { Observable } from 'rxjs';

import { applyFieldError, errorMessage } from '@console/core/api-error';

export interface SubmitOptions {
  /** The form goes away on success (a dialog closes, the page moves on): it stays busy until then. */
  leaves?: boolean;
  /** Handles a refusal its own way first (a 409 told elsewhere, a step reset); true: nothing else shows it. */
  refused?: (err: unknown) => boolean | void;
}

/**
 * The state of one form's submit, in one place: busy while the request runs (the submit button is
 * disabled), the API's refusal (`{error, code, details}`) under the field `details.field` names, or
 * else as the form's error line.
 */
export class Submission {
  readonly busy = signal(false);
  readonly error = signal<string | null>(null);

  /** @param form the form whose fields a refusal may name; none for a form-level error only. */
  constructor(private readonly form?: FormGroup) {}

  /** True when the form may be sent; otherwise shows every field's error and returns false. */
  ready(): boolean {
    if (!this.form?.invalid) return true;
    this.form.markAllAsTouched();
    return false;
  }

  /** Sends `request` and hands its answer to `next`; a refusal lands on its field or the error line. */
  run<T>(request: Observable<T>, next: (value: T) => void, options: SubmitOptions = {}): void {
    this.busy.set(true);
    this.error.set(null);
    request.subscribe({
      next: (value) => {
        if (!options.leaves) this.busy.set(false);
        next(value);
      },
      error: (err: unknown) => {
        this.busy.set(false);
        if (options.refused?.(err) !== true) this.fail(err);
      },
    });
  }

  /** Shows a refusal: on the field it names, else on the error line (a string: a sentence of the form's own). */
  fail(err: unknown): void {
    if (typeof err === 'string') this.error.set(err);
    else if (!this.form || !applyFieldError(this.form, err)) this.error.set(errorMessage(err));
  }
}

/**
 * A form dialog's submission: `save` sends and closes the dialog with what the server answered (busy
 * until it has closed); with nothing to send (an edit that changed nothing) it closes without an answer.
 * Made in the dialog's field initializers, where it finds the dialog it belongs to.
 */
export class DialogSubmission<R> extends Submission {
  private readonly dialogRef = inject<MatDialogRef<unknown, R>>(MatDialogRef);

  save(request: Observable<R> | null, refused?: SubmitOptions['refused']): void {
    if (!request) this.dialogRef.close();
    else this.run(request, (saved) => this.dialogRef.close(saved), { leaves: true, refused });
  }
}
