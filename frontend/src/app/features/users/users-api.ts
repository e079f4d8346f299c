import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { catchError, map, Observable, of, tap, throwError } from 'rxjs';

import { Loaded, loaded } from '@console/core/loaded';
import { CustomersApi } from '@console/shared/customers/customers-api';
import { Changes, onTopics, Refreshing, refreshing } from '@console/core/refresh';
import type { NewUser, User, UserAnswer, UserChanges } from '@contracts/accounts';
import type { Customer as FleetCustomer } from '@contracts/fleet';

// the JSON of /api/users, from the schemas the server answers and reads with (contracts/accounts.ts)
/** One account as GET /api/users lists it. */
export type UserRow = User;

/** The name a grant shows; the fleet's customer carries more than the dialog needs. */
export type Customer = Pick<FleetCustomer, 'id' | 'name'>;

/** POST body: no `customerIds` grants nothing. PATCH body: only what changed; `username: null` removes it. */
export type { NewUser, UserChanges };

export const USERS_URL = '/api/users';

/** Account administration (ADMIN only). */
@Injectable({ providedIn: 'root' })
export class UsersApi {
  private readonly http = inject(HttpClient);
  private readonly reload$ = new Changes();

  /** All accounts; again after every change made through this service or announced live (another ADMIN's). */
  readonly users$: Observable<Refreshing<UserRow[]>> = refreshing(
    () => this.http.get<UserRow[]>(USERS_URL),
    this.reload$,
    onTopics('users'),
  );

  /**
   * Customers to grant, or null while the API has no customers yet (404: the fleet pages are not
   * built): grants are then left as they are.
   */
  readonly customers$: Observable<Loaded<Customer[] | null>> = loaded(
    inject(CustomersApi)
      .customers()
      .pipe(
        catchError((err: unknown) =>
          err instanceof HttpErrorResponse && err.status === 404 ? of(null) : throwError(() => err),
        ),
      ),
  );

  create(user: NewUser): Observable<UserRow> {
    return this.http.post<UserAnswer>(USERS_URL, user).pipe(
      map((answer) => answer.user),
      tap(() => this.reload$.next()),
    );
  }

  update(id: number, changes: UserChanges): Observable<UserRow> {
    return this.http.patch<UserAnswer>(this.url(id), changes).pipe(
      map((answer) => answer.user),
      tap(() => this.reload$.next()),
    );
  }

  remove(id: number): Observable<void> {
    return this.reload$.deleted(this.http.delete(this.url(id)));
  }

  private url(id: number): string {
    return `${USERS_URL}/${id}`;
  }
}
