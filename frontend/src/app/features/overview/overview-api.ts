import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { LiveService } from '@console/core/live';
import { followLive, onTopics, Refreshing, refreshing } from '@console/core/refresh';
import type { FleetTrend, Overview } from '@contracts/overview';

export type { FleetTrend, Overview, OverviewCustomer, OverviewIncident, WorstOffender } from '@contracts/overview';

export const OVERVIEW_URL = '/api/overview';
export const TREND_URL = '/api/overview/trend';

@Injectable({ providedIn: 'root' })
export class OverviewApi {
  private readonly http = inject(HttpClient);
  private readonly live = inject(LiveService);

  /** The answer of /api/overview, then the live channel's `overview` snapshot whenever it changes. */
  readonly overview$: Observable<Refreshing<Overview>> = followLive(
    refreshing(() => this.http.get<Overview>(OVERVIEW_URL)),
    this.live.snapshot<Overview>('overview'),
  );

  /** The last 24 hours; read again when an alert or a system's status changes (an offline alert is both). */
  readonly trend$: Observable<Refreshing<FleetTrend>> = refreshing(
    () => this.http.get<FleetTrend>(TREND_URL),
    undefined,
    onTopics('alerts', 'systems'),
  );
}
