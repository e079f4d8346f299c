import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { catchError, forkJoin, map, Observable, of } from 'rxjs';

import { Changes, onTopics, Refreshing, refreshing } from '@console/core/refresh';
import type { ClusterEnrollment } from '@contracts/fleet';

export type { ClusterEnrollment };

export const ENROLLMENT_URL = '/api/clusters/enrollment';
export const AGENT_VERSION_URL = '/api/agent/version';
/** The architectures the installer knows (README "Operations", `npm run build:agent`). */
export const AGENT_ARCHES = ['x86_64', 'aarch64'] as const;
export const enrollmentLimitUrl = (clusterId: number) => `/api/clusters/${clusterId}/enrollment-limit`;

/** Each visible cluster's enrolments of the last hour, and an ADMIN's one-hour raise of its limit. */
@Injectable({ providedIn: 'root' })
export class EnrollmentApi {
  private readonly http = inject(HttpClient);
  private readonly changed$ = new Changes();

  /** Fetched again on a raise made here, on a change of customers or clusters, and on the refresh timers. */
  readonly enrollment$: Observable<Refreshing<ClusterEnrollment[]>> = refreshing(
    () => this.http.get<ClusterEnrollment[]>(ENROLLMENT_URL),
    this.changed$,
    onTopics('customers'),
  );

  /**
   * The architectures the server has an agent build for: what the install command can install. An
   * architecture without one answers 404 (the installer then stops with "no agent build").
   */
  agentBuilds(): Observable<string[]> {
    return forkJoin(
      AGENT_ARCHES.map((arch) =>
        this.http.get(AGENT_VERSION_URL, { params: { arch } }).pipe(
          map(() => [arch]),
          catchError(() => of([])),
        ),
      ),
    ).pipe(map((found) => found.flat()));
  }

  /** The cluster takes up to `limit` new systems an hour, for the next hour. */
  raise(clusterId: number, limit: number): Observable<ClusterEnrollment> {
    return this.changed$.after(this.http.post<ClusterEnrollment>(enrollmentLimitUrl(clusterId), { limit }));
  }
}
