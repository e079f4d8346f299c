import { HttpInterceptorFn } from '@angular/common/http';
import { inject, Injectable, signal } from '@angular/core';

export const CSRF_HEADER = 'x-csrf-token';
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

/** Cookie-authenticated writes need the token header (docs/api.md); reads and foreign URLs go out unchanged. */
export const csrfInterceptor: HttpInterceptorFn = (req, next) => {
  const token = inject(CsrfToken).value();
  if (!token || !WRITES.has(req.method) || !isApiUrl(req.url)) return next(req);
  return next(req.clone({ setHeaders: { [CSRF_HEADER]: token } }));
};
