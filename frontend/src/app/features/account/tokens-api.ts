import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { BehaviorSubject, Observable, switchMap, tap } from 'rxjs';

import { Loaded, loaded } from '../../core/loaded';

export type TokenStatus = 'active' | 'revoked' | 'expired';

/** One personal API token as GET /api/tokens lists it (never with its value). */
export interface ApiToken {
  id: number;
  name: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  status: TokenStatus;
}

/** The answer to a creation: the only time the value (`argus_…`) is ever sent. */
export interface CreatedToken extends ApiToken {
  token: string;
}

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
      .post<CreatedToken>(TOKENS_URL, { name, ...(expiresAt ? { expiresAt } : {}) })
      .pipe(tap(() => this.reload$.next()));
  }

  revoke(id: number): Observable<ApiToken> {
    return this.http.delete<ApiToken>(`${TOKENS_URL}/${id}`).pipe(tap(() => this.reload$.next()));
  }
}
