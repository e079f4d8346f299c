import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { computed, inject, Injectable, InjectionToken, signal } from '@angular/core';
import { catchError, map, Observable, of, shareReplay, switchMap, tap, throwError } from 'rxjs';

import { CSRF_URL, CsrfToken } from './csrf-interceptor';
import type { ForgotPassword, NotifyLevel, ResetPassword, User as AccountUser } from '@contracts/accounts';
import type {
  AuthOptions,
  CsrfAnswer,
  Credentials,
  LoginAnswer,
  MeAnswer,
  SecondFactor,
  SetupRequest,
} from '@contracts/auth';
import type { SsoSignOut } from '@contracts/sso';
import type { Role, Severity } from '@contracts/common';

// the JSON of /api/auth/* and /api/setup, from the schemas the server answers and reads with (contracts/)
export type { AuthOptions, Credentials, NotifyLevel, Role, SecondFactor, SetupRequest, Severity };

export const ROLES: readonly Role[] = ['ADMIN', 'OPERATOR', 'VIEWER'];

/** "Admin", "Operator", "Viewer". */
export function roleLabel(role: Role | null | undefined): string {
  return role ? role.charAt(0) + role.slice(1).toLowerCase() : '';
}

/** The signed-in account, as GET /api/auth/me and the sign-in answer give it. */
export type User = AccountUser;

/** A sign-in either opens the session or asks for a second-factor code; a refusal is an HTTP error (401, 429). */
export type LoginResult = { kind: 'signed-in'; user: User } | { kind: 'second-factor'; method: SecondFactor };

export const AUTH_URLS = {
  options: '/api/auth/options',
  me: '/api/auth/me',
  csrf: CSRF_URL,
  login: '/api/auth/login',
  // ends the Argus session as /api/auth/logout does, and names the provider's sign-out page for an
  // account of the identity provider (RP-initiated logout)
  logout: '/api/auth/sso/logout',
  forgot: '/api/auth/password/forgot',
  reset: '/api/auth/password/reset',
  setup: '/api/setup',
} as const;

/** Paths that answer 401 as part of their normal work (not a lapsed session). */
export function isAuthEndpoint(path: string): boolean {
  return path.startsWith('/api/auth/') || path === AUTH_URLS.setup;
}

/** Sends the browser to a page outside the console (the identity provider's sign-out); specs give a double. */
export const LEAVE_CONSOLE = new InjectionToken<(url: string) => void>('leave the console', {
  providedIn: 'root',
  factory: () => (url: string) => window.location.assign(url),
});

/** Only a web address is followed: anything else the answer held would be no provider's page. */
function webAddress(value: string | null | undefined): string | null {
  return value && /^https?:\/\//i.test(value) ? value : null;
}

@Injectable({ providedIn: 'root' })
export class AuthService {
  private readonly http = inject(HttpClient);
  private readonly csrf = inject(CsrfToken);

  private readonly current = signal<User | null>(null);
  /** The signed-in account; null when signed out or not known yet. */
  readonly user = this.current.asReadonly();
  readonly isAdmin = computed(() => this.current()?.role === 'ADMIN');

  // The session is asked for once per page load; sign-in and sign-out replace the answer.
  private session$: Observable<User | null> | null = null;

  /** Asked afresh on every subscription: the answer changes when setup completes or mail is switched on. */
  readonly options$: Observable<AuthOptions> = this.http.get<AuthOptions>(AUTH_URLS.options);

  /** The current session, loaded on first use; guards wait for it. A failure is not remembered, so the next call retries. */
  session(): Observable<User | null> {
    this.session$ ??= this.loadMe().pipe(
      catchError((err: unknown) => {
        this.session$ = null;
        return throwError(() => err);
      }),
      shareReplay(1),
    );
    return this.session$;
  }

  /** GET /api/auth/me, then the session's CSRF token; 401 means signed out (null). */
  loadMe(): Observable<User | null> {
    return this.http.get<MeAnswer>(AUTH_URLS.me).pipe(
      switchMap(({ user }) =>
        this.http.get<CsrfAnswer>(AUTH_URLS.csrf).pipe(
          tap(({ csrfToken }) => this.csrf.set(csrfToken)),
          map(() => user),
          // Reads still work without the token; a write would then be refused with 403, not lose the session.
          catchError(() => of(user)),
        ),
      ),
      tap((user) => this.signedIn(user)),
      catchError((err: unknown) => {
        if (err instanceof HttpErrorResponse && err.status === 401) {
          this.sessionEnded();
          return of(null);
        }
        return throwError(() => err);
      }),
    );
  }

  /** POST /api/auth/login. For the code step, send the same credentials again with `code`. */
  login(credentials: Credentials): Observable<LoginResult> {
    return this.http.post<LoginAnswer>(AUTH_URLS.login, credentials).pipe(
      map((answer): LoginResult => {
        if ('secondFactor' in answer) return { kind: 'second-factor', method: answer.secondFactor };
        this.signedIn(answer.user, answer.csrfToken);
        return { kind: 'signed-in', user: answer.user };
      }),
    );
  }

  /**
   * Ends the session on the server; the console forgets it even when that request fails. The answer:
   * the identity provider's sign-out page to send the browser to (its session ends too), or null.
   */
  logout(): Observable<string | null> {
    return this.http.post<SsoSignOut | null>(AUTH_URLS.logout, null).pipe(
      catchError(() => of(null)),
      map((answer) => webAddress(answer?.redirect)),
      tap(() => this.sessionEnded()),
    );
  }

  /** Forgets the session locally, e.g. after an API call answered 401. */
  sessionEnded(): void {
    this.current.set(null);
    this.csrf.set(null);
    this.session$ = of(null);
  }

  /** Replaces the signed-in account after it changed (profile saved). */
  updateUser(user: User): void {
    this.current.set(user);
  }

  setup(request: SetupRequest): Observable<void> {
    return this.http.post<unknown>(AUTH_URLS.setup, request).pipe(map(() => undefined));
  }

  forgotPassword(email: string): Observable<void> {
    return this.http.post<unknown>(AUTH_URLS.forgot, { email } satisfies ForgotPassword).pipe(map(() => undefined));
  }

  resetPassword(token: string, password: string): Observable<void> {
    return this.http
      .post<unknown>(AUTH_URLS.reset, { token, password } satisfies ResetPassword)
      .pipe(map(() => undefined));
  }

  private signedIn(user: User, csrfToken?: string): void {
    if (csrfToken !== undefined) this.csrf.set(csrfToken);
    this.current.set(user);
    this.session$ = of(user);
  }
}
