import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { BehaviorSubject, Observable, switchMap, tap } from 'rxjs';

import { Loaded, loaded } from '@console/core/loaded';

import type { ApiToken, NewApiToken, NewApiTokenRequest } from '@contracts/accounts';

// the JSON of /api/tokens, from the schemas the server answers with (contracts/accounts.ts)
/** One personal API token as GET /api/tokens lists it (never with its value). */
export type { ApiToken };
export type TokenStatus = ApiToken['status'];
/** The answer to a creation: the only time the value (`argus_…`) is ever sent. */
export type CreatedToken = NewApiToken;

export const TOKENS_URL = '/api/tokens';

/** The signed-in account's API tokens (session cookie only: the server refuses a bearer token here). */
@Injectable({ providedIn: 'root' })
export class TokensApi {
  private readonly http = inject(HttpClient);
  private readonly reload$ = new BehaviorSubject<void>(undefined);

  /** Own tokens, newest first; emits again after every create or revoke. */
  readonly tokens$: Observable<Loaded<ApiToken[]>> = this.reload$.pipe(
    switchMap(() => loaded(this.http.get<ApiToken[]>(TOKENS_URL))),
  );

  /** The created token carries its value; it is handed to the caller and never kept here. */
  create(name: string, expiresAt: string | null): Observable<CreatedToken> {
    return this.http
      .post<CreatedToken>(TOKENS_URL, { name, ...(expiresAt ? { expiresAt } : {}) } satisfies NewApiTokenRequest)
      .pipe(tap(() => this.reload$.next()));
  }

  revoke(id: number): Observable<ApiToken> {
    return this.http.delete<ApiToken>(`${TOKENS_URL}/${id}`).pipe(tap(() => this.reload$.next()));
  }
}
