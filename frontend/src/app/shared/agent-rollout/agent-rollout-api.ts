import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { map, Observable } from 'rxjs';

import type { RolloutMode as RolloutAnswer } from '@contracts/agents';

/** `all`: every agent is offered the newest build at once; `canary`: one system per customer first (contracts/agents.ts). */
export type RolloutMode = RolloutAnswer['mode'];

export const AGENT_ROLLOUT_URL = '/api/settings/agent-rollout';

export const retryUpdateUrl = (systemId: number): string => `/api/systems/${systemId}/retry-update`;

/** Agent updates (ADMIN): the rollout mode, and the "retry update" recovery action of the update-failure guard. */
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

  /** Lets the failed build be offered to the system again. */
  retryUpdate(systemId: number): Observable<void> {
    return this.http.post<void>(retryUpdateUrl(systemId), null).pipe(map(() => undefined));
  }
}
