import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { MatProgressBarModule } from '@angular/material/progress-bar';

import { Loaded } from '@console/core/loaded';
import { Refreshing } from '@console/core/refresh';

/**
 * What a page shows before and around its data: a progress bar (named by `label`) while loading, the
 * failure as an alert, and, once ready, a status line when the last reload failed and older rows are
 * shown. The page draws the ready value itself: `@if (state.state === 'ready') { … }` after this.
 */
@Component({
  selector: 'argus-load-state',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatProgressBarModule],
  host: { style: 'display: contents' },
  template: `
    @let current = state();
    @switch (current.state) {
      @case ('loading') {
        <mat-progress-bar mode="indeterminate" [attr.aria-label]="label()" />
      }
      @case ('error') {
        <p class="form-error" role="alert">{{ current.message }}</p>
      }
      @case ('ready') {
        @if (stale(); as reason) {
          <p class="form-error" role="status">Could not refresh ({{ reason }}). Showing the last answer.</p>
        }
      }
    }
  `,
})
export class LoadState {
  readonly state = input.required<Loaded<unknown> | Refreshing<unknown>>();
  /** Names the progress bar for screen readers: "Loading maintenance windows". */
  readonly label = input.required<string>();

  protected stale(): string | undefined {
    const current = this.state();
    return 'stale' in current ? current.stale : undefined;
  }
}
