import { Clipboard } from '@angular/cdk/clipboard';
import { Injectable, inject } from '@angular/core';
import { MatSnackBar } from '@angular/material/snack-bar';

import { errorMessage } from '@console/core/api-error';

/**
 * How long a snack bar stays, by what it says: "done" is read at a glance; a longer notice (what
 * happened besides, such as other sessions ended) gets more time; a refusal keeps a Dismiss button
 * and stays long enough to be read twice.
 */
export const NOTICE_MS = { done: 4000, long: 6000, refused: 10000 } as const;

/** The console's one way to tell the user, in passing, that something was done or refused. */
@Injectable({ providedIn: 'root' })
export class Notify {
  private readonly snackBar = inject(MatSnackBar);
  private readonly clipboard = inject(Clipboard);

  done(message: string, duration: number = NOTICE_MS.done): void {
    this.snackBar.open(message, undefined, { duration });
  }

  /**
   * The refusal: a sentence of ours, or the API's message for a failed request. Returns true, so that
   * it can be a submission's whole `refused` handling (an action without an error line of its own).
   */
  refused(reason: unknown): true {
    const message = typeof reason === 'string' ? reason : errorMessage(reason);
    this.snackBar.open(message, 'Dismiss', { duration: NOTICE_MS.refused });
    return true;
  }

  /** Copies `text` to the clipboard and says `done`; when the browser refused, how to copy `what` by hand. */
  copy(text: string, done: string, what: string): void {
    const copied = this.clipboard.copy(text);
    this.done(copied ? done : `The browser refused to copy. Select ${what} and copy it by hand.`);
  }
}
