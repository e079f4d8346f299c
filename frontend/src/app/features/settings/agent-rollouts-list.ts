import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { RouterLink } from '@angular/router';

import { Loaded, loaded, LOADING } from '@console/core/loaded';
import { AgentRollout, AgentRolloutApi } from '@console/shared/agent-rollout/agent-rollout-api';
import { Table } from '@console/ui/table';
import { Notify } from '@console/ui/notify';

export const ROLLOUT_STATES: Record<AgentRollout['state'], string> = {
  canary: 'Waiting for the canary',
  released: 'Released',
  halted: 'Halted: the canary failed the update',
};

/**
 * The canary rollouts (docs/decisions.md "Rollouts widen only on the canary's own report"): one per customer, architecture and version. The rest of a
 * customer follows only once the canary itself reported the new version for 10 minutes; a halted rollout stays
 * halted until an administrator resumes it here.
 */
@Component({
  selector: 'argus-agent-rollouts',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Table, DatePipe, MatButtonModule, MatProgressBarModule, RouterLink],
  template: `
    <h2 class="title">Canary rollouts</h2>
    @let state = rollouts();
    @if (state.state === 'loading') {
      <mat-progress-bar mode="indeterminate" aria-label="Loading the rollouts" />
    } @else if (state.state === 'error') {
      <p class="form-error" role="alert">{{ state.message }}</p>
    } @else if (state.value.length === 0) {
      <p data-testid="no-rollouts">
        No canary rollout yet: they start when a new build meets a customer in canary mode.
      </p>
    } @else {
      <argus-table
        label="Canary rollouts"
        [columns]="['Customer', 'Architecture', 'Version', 'Canary', 'State', 'Since']"
        actions="Actions"
      >
        <tbody>
          @for (rollout of state.value; track rollout.id) {
            <tr [attr.data-testid]="'rollout-' + rollout.id">
              <td>{{ rollout.customerName }}</td>
              <td>{{ rollout.arch }}</td>
              <td class="mono">{{ rollout.version }}</td>
              <td>
                @if (rollout.canary; as canary) {
                  <a [routerLink]="['/systems', canary.id]">{{ canary.name }}</a>
                } @else {
                  (deleted)
                }
              </td>
              <td data-testid="state">{{ stateLabels[rollout.state] }}</td>
              <td>
                <time [attr.datetime]="rollout.changedAt">{{ rollout.changedAt | date: 'medium' }}</time>
              </td>
              <td>
                @if (rollout.state === 'halted') {
                  <button mat-stroked-button type="button" [disabled]="busy() === rollout.id" (click)="resume(rollout)">
                    Resume
                  </button>
                }
              </td>
            </tr>
          }
        </tbody>
      </argus-table>
    }
  `,
  styles: `
    .title {
      margin: 32px 0 8px;
      font: var(--mat-sys-title-medium);
    }
    .mono {
      font-family: var(--argus-mono);
    }
  `,
})
export class AgentRolloutsList {
  private readonly api = inject(AgentRolloutApi);
  private readonly notify = inject(Notify);

  protected readonly stateLabels = ROLLOUT_STATES;
  protected readonly rollouts = signal<Loaded<AgentRollout[]>>(LOADING);
  /** The rollout being resumed. */
  protected readonly busy = signal<number | null>(null);

  constructor() {
    loaded(this.api.rollouts$)
      .pipe(takeUntilDestroyed())
      .subscribe((state) => this.rollouts.set(state));
  }

  protected resume(rollout: AgentRollout): void {
    this.busy.set(rollout.id);
    this.api.resumeRollout(rollout.id).subscribe({
      next: (resumed) => {
        this.busy.set(null);
        this.rollouts.update((state) =>
          state.state === 'ready'
            ? { state: 'ready', value: state.value.map((row) => (row.id === resumed.id ? resumed : row)) }
            : state,
        );
        const canary = resumed.canary?.name ?? 'The canary';
        this.notify.done(`${canary} is offered ${resumed.version} again`);
      },
      error: (err: unknown) => {
        this.busy.set(null);
        this.notify.refused(err);
      },
    });
  }
}
