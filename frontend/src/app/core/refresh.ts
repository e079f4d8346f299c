import { interval, merge, NEVER, Observable, scan, startWith, switchMap } from 'rxjs';

import { Loaded, LOADING, loaded } from './loaded';

/**
 * How often fleet data is fetched again. This is the one place to replace with the live channel
 * (contracts.md "Live channel data"): pages only see the observables the services build with `refreshing`.
 */
export const REFRESH_INTERVAL_MS = 30_000;

/**
 * A loaded value that may be older than the last attempt: `stale` holds the message of the reload that
 * failed, while the rows from the last good answer stay on screen.
 */
export type Refreshing<T> = Loaded<T> & { stale?: string };

/**
 * Requests now, every REFRESH_INTERVAL_MS and whenever `reload$` emits (after a change made through the
 * service). A failed reload keeps the last good value and marks it stale instead of blanking the page.
 */
export function refreshing<T>(
  request: () => Observable<T>,
  reload$: Observable<unknown> = NEVER,
): Observable<Refreshing<T>> {
  return merge(reload$, interval(REFRESH_INTERVAL_MS)).pipe(
    startWith(null),
    switchMap(() => loaded(request())),
    scan(
      (previous: Refreshing<T>, next: Loaded<T>): Refreshing<T> =>
        next.state === 'error' && previous.state === 'ready' ? { ...previous, stale: next.message } : next,
      LOADING as Refreshing<T>,
    ),
  );
}
