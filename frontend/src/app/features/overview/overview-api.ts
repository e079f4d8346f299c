import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { LiveService } from '../../core/live';
import { followLive, Refreshing, refreshing } from '../../core/refresh';
import type { Overview } from '@contracts/overview';

export type { Overview, OverviewCustomer, OverviewIncident, WorstOffender } from '@contracts/overview';

export const OVERVIEW_URL = '/api/overview';

@Injectable({ providedIn: 'root' })
export class OverviewApi {
  private readonly http = inject(HttpClient);
  private readonly live = inject(LiveService);

  /** The answer of /api/overview, then the live channel's `overview` snapshot whenever it changes. */
  readonly overview$: Observable<Refreshing<Overview>> = followLive(
    refreshing(() => this.http.get<Overview>(OVERVIEW_URL)),
    this.live.snapshot<Overview>('overview'),
  );
}
