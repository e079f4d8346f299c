import { HttpClient, HttpErrorResponse, HttpInterceptorFn } from '@angular/common/http';
import { inject, Injectable, signal } from '@angular/core';
import { catchError, switchMap, throwError } from 'rxjs';

import { errorCode } from './api-error';
import type { CsrfAnswer } from '@contracts/auth';

export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_URL = '/api/auth/csrf';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session's CSRF token, held in memory only: it comes with the sign-in answer or from GET /api/auth/csrf. */
@Injectable({ providedIn: 'root' })
export class CsrfToken {
  private readonly token = signal<string | null>(null);
  readonly value = this.token.asReadonly();

  set(token: string | null): void {
    this.token.set(token);
  }
}

/** True for a path of this origin's API; the token must never travel to another host. */
export function isApiUrl(url: string): boolean {
  const parsed = new URL(url, location.origin);
  return parsed.origin === location.origin && parsed.pathname.startsWith('/api/');
}

function isCsrfRefusal(err: unknown): boolean {
  return err instanceof HttpErrorResponse && err.status === 403 && errorCode(err) === 'csrf_failed';
}

/**
 * Cookie-authenticated writes need the token header (docs/api.md); reads and foreign URLs go out unchanged.
 * A write refused with 403 'csrf_failed' (the token was missing or stale, e.g. the session was renewed in
 * another tab) fetches a fresh token and is sent once more. The retry goes on down the chain, not through
 * this interceptor again, so a second refusal reaches the caller: there is never a loop.
 */
export const csrfInterceptor: HttpInterceptorFn = (req, next) => {
  if (!WRITES.has(req.method) || !isApiUrl(req.url)) return next(req);
  const csrf = inject(CsrfToken);
  const http = inject(HttpClient);
  const withToken = (token: string | null) => (token ? req.clone({ setHeaders: { [CSRF_HEADER]: token } }) : req);

  return next(withToken(csrf.value())).pipe(
    catchError((refusal: unknown) => {
      if (!isCsrfRefusal(refusal)) return throwError(() => refusal);
      return http.get<CsrfAnswer>(CSRF_URL).pipe(
        // Without a fresh token a retry is pointless: the caller sees the original refusal.
        catchError(() => throwError(() => refusal)),
        switchMap(({ csrfToken }) => {
          csrf.set(csrfToken);
          return next(withToken(csrfToken));
        }),
      );
    }),
  );
};
