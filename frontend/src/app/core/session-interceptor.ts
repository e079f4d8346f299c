import { HttpErrorResponse, HttpInterceptorFn } from '@angular/common/http';
import { inject } from '@angular/core';
import { Router } from '@angular/router';
import { catchError, throwError } from 'rxjs';

import { AuthService, isAuthEndpoint } from './auth';
import { isApiUrl } from './csrf-interceptor';

/**
 * A 401 from the API outside the sign-in endpoints means the session ended (expired, signed out
 * elsewhere, password changed, account disabled): forget it and ask for a new sign-in, coming back here.
 */
export const sessionInterceptor: HttpInterceptorFn = (req, next) => {
  const auth = inject(AuthService);
  const router = inject(Router);
  return next(req).pipe(
    catchError((err: unknown) => {
      if (err instanceof HttpErrorResponse && err.status === 401 && isApiUrl(req.url)) {
        const path = new URL(req.url, location.origin).pathname;
        if (!isAuthEndpoint(path)) {
          auth.sessionEnded();
          const here = router.url;
          if (!here.startsWith('/login')) void router.navigate(['/login'], { queryParams: { returnUrl: here } });
        }
      }
      return throwError(() => err);
    }),
  );
};
