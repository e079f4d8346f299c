import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, Observable } from 'rxjs';

import type { AgentRollout, AgentRolloutList, RolloutMode as RolloutAnswer } from '@contracts/agents';

export type { AgentRollout } from '@contracts/agents';

/** `all`: every agent is offered the newest build at once; `canary`: one system per customer first (contracts/agents.ts). */
export type RolloutMode = RolloutAnswer['mode'];

export const AGENT_ROLLOUT_URL = '/api/settings/agent-rollout';

export const retryUpdateUrl = (systemId: number): string => `/api/systems/${systemId}/retry-update`;

export const AGENT_ROLLOUTS_URL = '/api/agent-rollouts';

export const resumeRolloutUrl = (rolloutId: number): string => `${AGENT_ROLLOUTS_URL}/${rolloutId}/resume`;

/**
 * Agent updates (ADMIN): the rollout mode, the canary rollouts (a halted one resumes), and the "retry update"
 * recovery action of the update-failure guard.
 */
@Injectable({ providedIn: 'root' })
export class AgentRolloutApi {
  private readonly http = inject(HttpClient);

  readonly mode$: Observable<RolloutMode> = this.http
    .get<RolloutAnswer>(AGENT_ROLLOUT_URL)
    .pipe(map((answer) => answer.mode));

  setMode(mode: RolloutMode): Observable<RolloutMode> {
    return this.http
      .put<RolloutAnswer>(AGENT_ROLLOUT_URL, { mode } satisfies RolloutAnswer)
      .pipe(map((answer) => answer.mode));
  }

  /** Canary rollouts: not yet released first, then released, newest change first. */
  readonly rollouts$: Observable<AgentRollout[]> = this.http
    .get<AgentRolloutList>(AGENT_ROLLOUTS_URL)
    .pipe(map((answer) => answer.rollouts));

  /** A rollout its canary halted: the canary is offered the build again. */
  resumeRollout(rolloutId: number): Observable<AgentRollout> {
    return this.http.post<AgentRollout>(resumeRolloutUrl(rolloutId), null);
  }

  /** Lets the failed build be offered to the system again. */
  retryUpdate(systemId: number): Observable<void> {
    return this.http.post<void>(retryUpdateUrl(systemId), null).pipe(map(() => undefined));
  }
}
