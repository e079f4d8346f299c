import { ChangeDetectionStrategy, Component, computed, inject, input, linkedSignal } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';

import { AuthService } from '@console/core/auth';
import { Icon } from '@console/ui/icon';
import { AgentRolloutApi } from './agent-rollout-api';
import { Notify } from '@console/ui/notify';
import { Submission } from '@console/ui/submission';

/**
 * The update-failure guard on a system page (docs/protocol.md "Agent updates"): an agent offered a build that
 * kept reporting another version is not offered it again until an administrator retries.
 */
@Component({
  selector: 'argus-agent-rollout-failure',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon, MatButtonModule],
  template: `
    @if (shown(); as version) {
      <div class="notice" role="status" data-testid="update-failed">
        <argus-icon name="warning" class="icon" />
        <p class="text">
          The agent update to <span class="mono">{{ version }}</span> failed: after the offer the agent kept reporting
          another version. Argus does not offer this build to the system again until an administrator retries.
        </p>
        @if (isAdmin()) {
          <button mat-stroked-button type="button" [disabled]="submission.busy()" (click)="retry(version)">
            Retry update
          </button>
        }
      </div>
    }
  `,
  styles: `
    .notice {
      display: flex;
      align-items: center;
      flex-wrap: wrap;
      gap: 12px;
      margin: 0 0 24px;
      padding: 12px 16px;
      border-radius: var(--mat-sys-corner-medium);
      background: var(--mat-sys-error-container);
      color: var(--mat-sys-on-error-container);
    }
    .icon {
      flex: 0 0 auto;
    }
    .text {
      flex: 1 1 320px;
      margin: 0;
    }
    .mono {
      font-family: var(--argus-mono);
    }
  `,
})
export class AgentRolloutFailure {
  private readonly api = inject(AgentRolloutApi);
  private readonly notify = inject(Notify);
  protected readonly isAdmin = inject(AuthService).isAdmin;

  readonly systemId = input.required<number>();
  /** `updateFailedVersion` of GET /api/systems/:id; null while no update failed. */
  readonly failedVersion = input<string | null | undefined>(null);

  /** The version retried here stays hidden; a new answer for the system (cleared, failed anew) starts over. */
  private readonly retried = linkedSignal<string | null | undefined, string | null>({
    source: this.failedVersion,
    computation: () => null,
  });
  protected readonly shown = computed(() => {
    const version = this.failedVersion();
    return version && version !== this.retried() ? version : null;
  });
  protected readonly submission = new Submission();

  protected retry(version: string): void {
    const request = this.api.retryUpdate(this.systemId());
    this.submission.run(
      request,
      () => {
        this.retried.set(version);
        this.notify.done(`The update to ${version} will be offered again`);
      },
      { refused: (err) => this.notify.refused(err) },
    );
  }
}
