import { HttpClient } from '@angular/common/http';
import { inject } from '@angular/core';
import { Observable } from 'rxjs';

import { Changes, Refreshing, refreshing, ReloadOn } from './refresh';

/**
 * What the data service of one entity is made of when the API serves it as a collection (`GET url`,
 * `POST url`, `PATCH url/:id`, `DELETE url/:id`): the list, read again after every write made
 * through the service and on the live changes it names, and the writes. A service extends it with
 * its URL and adds what its entity has besides (an action on one item, a list with parameters).
 */
export abstract class Collection<T, New, Patch = Partial<New>> {
  protected readonly http = inject(HttpClient);
  /** The writes made through this service: every list it gives out reloads after each. */
  protected readonly changed$ = new Changes();

  protected constructor(protected readonly url: string) {}

  /**
   * What `GET url` answers (every item, or a listing of another shape `L`), with `params` when given;
   * read again after each write here and on the live changes `on` names.
   */
  protected list$<L = T[]>(on: ReloadOn = null, params?: Record<string, string | number>): Observable<Refreshing<L>> {
    return refreshing(() => this.http.get<L>(this.url, { params }), this.changed$, on);
  }

  protected itemUrl(id: number): string {
    return `${this.url}/${id}`;
  }

  create(body: New): Observable<T> {
    return this.changed$.after(this.http.post<T>(this.url, body));
  }

  update(id: number, changes: Patch): Observable<T> {
    return this.changed$.after(this.http.patch<T>(this.itemUrl(id), changes));
  }

  remove(id: number): Observable<void> {
    return this.changed$.deleted(this.http.delete(this.itemUrl(id)));
  }
}
