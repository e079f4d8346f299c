import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { Changes, Refreshing, refreshing } from '@console/core/refresh';
import type { StatusPage, StatusPageChanges, StatusPageCreate } from '@contracts/status-pages';

// the JSON of /api/status-pages (contracts/status-pages.ts)
export type { StatusPage, StatusPageChanges, StatusPageCreate };

export const STATUS_PAGES_URL = '/api/status-pages';

/** A customer's published status pages: only its writers see and change them. */
@Injectable({ providedIn: 'root' })
export class StatusPagesApi {
  private readonly http = inject(HttpClient);
  private readonly changed$ = new Changes();

  readonly pages$: Observable<Refreshing<StatusPage[]>> = refreshing(
    () => this.http.get<StatusPage[]>(STATUS_PAGES_URL),
    this.changed$,
  );

  create(body: StatusPageCreate): Observable<StatusPage> {
    return this.changed$.after(this.http.post<StatusPage>(STATUS_PAGES_URL, body));
  }

  update(id: number, changes: StatusPageChanges): Observable<StatusPage> {
    return this.changed$.after(this.http.patch<StatusPage>(`${STATUS_PAGES_URL}/${id}`, changes));
  }

  rotate(id: number): Observable<StatusPage> {
    return this.changed$.after(this.http.post<StatusPage>(`${STATUS_PAGES_URL}/${id}/rotate`, {}));
  }

  remove(id: number): Observable<void> {
    return this.changed$.deleted(this.http.delete(`${STATUS_PAGES_URL}/${id}`));
  }
}
