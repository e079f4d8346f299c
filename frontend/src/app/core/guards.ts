import { inject } from '@angular/core';
import { CanActivateFn, Router, UrlTree } from '@angular/router';
import { catchError, map, Observable, of, switchMap } from 'rxjs';

import { AuthService, User } from './auth';
import { safeReturnUrl } from './return-url';

function toLogin(router: Router, returnUrl: string): UrlTree {
  return returnUrl === '/'
    ? router.createUrlTree(['/login'])
    : router.createUrlTree(['/login'], { queryParams: { returnUrl } });
}

/** The session, or null when it cannot be known (API unreachable): the sign-in page then explains. */
function session(auth: AuthService): Observable<User | null> {
  return auth.session().pipe(catchError(() => of(null)));
}

/** App pages need a signed-in account; otherwise sign in first and come back. */
export const signedInGuard: CanActivateFn = (_route, state) => {
  const router = inject(Router);
  return session(inject(AuthService)).pipe(map((user) => (user ? true : toLogin(router, state.url))));
};

/** Administration pages; other roles land on the start page. */
export const adminGuard: CanActivateFn = (_route, state) => {
  const router = inject(Router);
  return session(inject(AuthService)).pipe(
    map((user) => {
      if (!user) return toLogin(router, state.url);
      return user.role === 'ADMIN' ? true : router.createUrlTree(['/']);
    }),
  );
};

/** Pages of administrators and operators (notification channels and routing); a viewer lands on the start page. */
export const writerGuard: CanActivateFn = (_route, state) => {
  const router = inject(Router);
  return session(inject(AuthService)).pipe(
    map((user) => {
      if (!user) return toLogin(router, state.url);
      return user.role === 'ADMIN' || user.role === 'OPERATOR' ? true : router.createUrlTree(['/']);
    }),
  );
};

/** docs/console.md "First visit and the Overview": /login redirects to /setup while no account exists; a signed-in user goes straight on. */
export const loginPageGuard: CanActivateFn = (route) => {
  const router = inject(Router);
  const auth = inject(AuthService);
  return auth.options$.pipe(
    switchMap((options) =>
      options.setupNeeded
        ? of(router.createUrlTree(['/setup']))
        : session(auth).pipe(
            map((user) =>
              user ? router.parseUrl(safeReturnUrl(route.queryParamMap.get('returnUrl'))) : (true as const),
            ),
          ),
    ),
    // Without the options the form still works; the page shows what the API says when it is used.
    catchError(() => of(true as const)),
  );
};

/** docs/console.md "First visit and the Overview": /setup redirects to /login once an account exists. */
export const setupPageGuard: CanActivateFn = () => {
  const router = inject(Router);
  return inject(AuthService).options$.pipe(
    map((options) => (options.setupNeeded ? true : router.createUrlTree(['/login']))),
    catchError(() => of(true as const)),
  );
};
