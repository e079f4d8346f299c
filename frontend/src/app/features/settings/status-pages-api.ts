import { Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import { Collection } from '@console/core/collection';
import type { StatusPage, StatusPageChanges, StatusPageCreate } from '@contracts/status-pages';

// the JSON of /api/status-pages (contracts/status-pages.ts)
export type { StatusPage, StatusPageChanges, StatusPageCreate };

export const STATUS_PAGES_URL = '/api/status-pages';

/** A customer's published status pages: only its writers see and change them. */
@Injectable({ providedIn: 'root' })
export class StatusPagesApi extends Collection<StatusPage, StatusPageCreate, StatusPageChanges> {
  readonly pages$ = this.list$();

  constructor() {
    super(STATUS_PAGES_URL);
  }

  /** A new address for the page; the old one stops answering. */
  rotate(id: number): Observable<StatusPage> {
    return this.changed$.after(this.http.post<StatusPage>(`${this.itemUrl(id)}/rotate`, {}));
  }
}
