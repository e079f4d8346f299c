import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';

import { Submission } from './submission';

/**
 * The foot of a form on a page (a dialog's is `<argus-dialog-footer>`): the submission's error line
 * (an alert, read out when it appears), then the actions row, with what the form projects first (a
 * link or button aside: "Back", "Forgot password?") and the submit button, disabled while busy.
 * Place it last inside the `<form>`.
 */
@Component({
  selector: 'argus-form-footer',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule],
  host: { style: 'display: contents' },
  template: `
    @if (submission().error(); as message) {
      <p class="form-error" role="alert">{{ message }}</p>
    }
    <div class="form-actions">
      <ng-content />
      <button mat-flat-button type="submit" [disabled]="submission().busy() || blocked()">{{ submit() }}</button>
    </div>
  `,
})
export class FormFooter {
  readonly submission = input.required<Submission>();
  /** Label of the submit button, a verb ("Save", "Sign in"). */
  readonly submit = input.required<string>();
  /** Disables the submit button besides while busy (say, while the form is unchanged). */
  readonly blocked = input(false);
}
