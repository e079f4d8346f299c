import { interval, map, merge, NEVER, Observable, ReplaySubject, scan, startWith, switchMap, throttleTime } from 'rxjs';

import { Loaded, LOADING, loaded } from './loaded';

/** How often data is fetched again while the live channel is not connected (or not there at all). */
export const REFRESH_INTERVAL_MS = 30_000;
/** While live: data changed on the server is fetched again at most this often... */
export const LIVE_REFRESH_MIN_MS = 2_000;
/** ...and, for changes the live channel does not announce (a rule another admin edited), this often anyway. */
export const LIVE_FALLBACK_MS = 5 * 60_000;

interface LiveSignals {
  changes$: Observable<void>;
  connected$: Observable<boolean>;
}

// The seam between pages and the live channel: LiveService plugs itself in here, so services that
// build their streams with `refreshing` follow the server without knowing about the socket.
const live$ = new ReplaySubject<LiveSignals | null>(1);
live$.next(null);

/** Called by LiveService: reload on its change events while it is connected; returns the unplug function. */
export function connectRefreshToLive(changes$: Observable<void>, connected$: Observable<boolean>): () => void {
  const signals = { changes$, connected$ };
  live$.next(signals);
  return () => live$.next(null);
}

/** When to reload: live changes while the channel is up (no timer needed), a 30 s timer while it is not. */
function reloadTriggers(): Observable<unknown> {
  return live$.pipe(
    switchMap((signals) =>
      signals
        ? signals.connected$.pipe(
            switchMap((up) =>
              up
                ? merge(
                    signals.changes$.pipe(
                      throttleTime(LIVE_REFRESH_MIN_MS, undefined, { leading: true, trailing: true }),
                    ),
                    interval(LIVE_FALLBACK_MS),
                  )
                : interval(REFRESH_INTERVAL_MS),
            ),
          )
        : interval(REFRESH_INTERVAL_MS),
    ),
  );
}

/**
 * A loaded value that may be older than the last attempt: `stale` holds the message of the reload that
 * failed, while the rows from the last good answer stay on screen.
 */
export type Refreshing<T> = Loaded<T> & { stale?: string };

/**
 * Requests now, again when the server's state changed (live channel) or every REFRESH_INTERVAL_MS while
 * the channel is down, and whenever `reload$` emits (after a change made through the service). A failed
 * reload keeps the last good value and marks it stale instead of blanking the page.
 */
export function refreshing<T>(
  request: () => Observable<T>,
  reload$: Observable<unknown> = NEVER,
): Observable<Refreshing<T>> {
  return merge(reload$, reloadTriggers()).pipe(
    startWith(null),
    switchMap(() => loaded(request())),
    scan(
      (previous: Refreshing<T>, next: Loaded<T>): Refreshing<T> =>
        next.state === 'error' && previous.state === 'ready' ? { ...previous, stale: next.message } : next,
      LOADING as Refreshing<T>,
    ),
  );
}

/** A stream that starts with the HTTP answer and then follows a live source of the same value. */
export function followLive<T>(initial$: Observable<Refreshing<T>>, live: Observable<T>): Observable<Refreshing<T>> {
  return merge(initial$, live.pipe(map((value): Refreshing<T> => ({ state: 'ready', value }))));
}
