import { ChangeDetectionStrategy, Component, computed, DestroyRef, inject, signal } from '@angular/core';
import { takeUntilDestroyed, toSignal } from '@angular/core/rxjs-interop';
import { FormControl, ReactiveFormsModule } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatCardModule } from '@angular/material/card';
import { MatRadioModule } from '@angular/material/radio';

import { Loaded, loaded, LOADING } from '@console/core/loaded';
import { AgentRolloutApi, RolloutMode } from '@console/shared/agent-rollout/agent-rollout-api';
import { AgentRolloutsList } from './agent-rollouts-list';
import { Notify } from '@console/ui/notify';
import { Submission } from '@console/ui/submission';
import { LoadState } from '@console/ui/load-state';
import { PageHeader } from '@console/ui/page-header';

export const ROLLOUT_MODES: readonly { value: RolloutMode; label: string; description: string }[] = [
  {
    value: 'all',
    label: 'All at once',
    description: 'Every agent is offered a new build with its next report.',
  },
  {
    value: 'canary',
    label: 'Canary first',
    description:
      'One system per customer (and architecture) gets a new build first. The rest of that customer follows once ' +
      'the canary itself has reported the new version for 10 minutes; a failed canary halts that customer’s ' +
      'rollout until an administrator resumes it below.',
  },
];

/** How new agent builds reach the fleet (docs/protocol.md "Agent updates"). */
@Component({
  selector: 'argus-agent-rollout-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    PageHeader,
    LoadState,
    AgentRolloutsList,
    MatButtonModule,
    MatCardModule,
    MatRadioModule,
    ReactiveFormsModule,
  ],
  templateUrl: './agent-rollout-page.html',
  styleUrl: './agent-rollout-page.scss',
})
export class AgentRolloutPage {
  private readonly api = inject(AgentRolloutApi);
  private readonly notify = inject(Notify);

  protected readonly modes = ROLLOUT_MODES;
  protected readonly mode = new FormControl<RolloutMode>('all', { nonNullable: true });
  protected readonly saved = signal<Loaded<RolloutMode>>(LOADING);
  private readonly picked = toSignal(this.mode.valueChanges, { initialValue: this.mode.value });
  /** Nothing to save while the picked mode is the stored one. */
  protected readonly unchanged = computed(() => {
    const saved = this.saved();
    return saved.state === 'ready' && saved.value === this.picked();
  });
  protected readonly submission = new Submission();

  constructor() {
    loaded(this.api.mode$)
      .pipe(takeUntilDestroyed(inject(DestroyRef)))
      .subscribe((state) => {
        this.saved.set(state);
        if (state.state === 'ready') this.mode.reset(state.value);
      });
  }

  protected save(): void {
    this.submission.run(this.api.setMode(this.mode.value), (mode) => {
      this.saved.set({ state: 'ready', value: mode });
      this.mode.reset(mode);
      this.notify.done('Rollout mode saved');
    });
  }
}
