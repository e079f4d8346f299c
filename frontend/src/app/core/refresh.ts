import {
  EMPTY,
  filter,
  interval,
  map,
  merge,
  NEVER,
  Observable,
  of,
  ReplaySubject,
  scan,
  startWith,
  Subject,
  switchMap,
  tap,
  throttleTime,
} from 'rxjs';

import { Loaded, LOADING, loaded } from './loaded';
import type { LiveChange, LiveChangeTopic } from '@contracts/live';

/** How often data is fetched again while the live channel is not connected (or not there at all). */
export const REFRESH_INTERVAL_MS = 30_000;
/** While live: data changed on the server is fetched again at most this often... */
export const LIVE_REFRESH_MIN_MS = 2_000;
/** ...and this often anyway, in case a change was lost (a Redis outage on the server). */
export const LIVE_FALLBACK_MS = 5 * 60_000;

/** What the live topic `changes` names (docs/api.md "Live channel", contracts/live.ts). */
export type LiveTopic = LiveChangeTopic;
export type { LiveChange };

/** Which changes a stream reloads on (null: none; it follows a snapshot, or only its own edits). */
export type ReloadOn = ((change: LiveChange) => boolean) | null;

/** Reload on any change of these topics. */
export const onTopics =
  (...topics: LiveTopic[]): ReloadOn =>
  (change) =>
    topics.includes(change.topic);

/** Reload on a change of `topic` that names `id`. */
export const onChangeOf =
  (topic: LiveTopic, id: number): ReloadOn =>
  (change) =>
    change.topic === topic && change.ids.includes(id);

interface LiveSignals {
  /** The changes the server announces, from the moment of subscribing (and those missed on a reconnect). */
  changes$: Observable<LiveChange>;
  connected$: Observable<boolean>;
}

// The seam between pages and the live channel: LiveService plugs itself in here, so services that
// build their streams with `refreshing` follow the server without knowing about the socket.
const live$ = new ReplaySubject<LiveSignals | null>(1);
live$.next(null);

/** Called by LiveService: reload on its changes while it is connected; returns the unplug function. */
export function connectRefreshToLive(changes$: Observable<LiveChange>, connected$: Observable<boolean>): () => void {
  live$.next({ changes$, connected$ });
  return () => live$.next(null);
}

/**
 * When to reload: the announced changes `on` names (throttled; subscribing keeps the `changes` topic
 * open across reconnections, so what was missed is replayed), a reconnection after the first
 * connection (a server restart replays nothing), and the 5-minute fallback while the channel is up;
 * a 30 s timer while it is down.
 */
function reloadTriggers(on: ReloadOn): Observable<unknown> {
  return live$.pipe(
    switchMap((signals) => {
      if (!signals) return interval(REFRESH_INTERVAL_MS);
      const wanted = on
        ? signals.changes$.pipe(
            filter(on),
            throttleTime(LIVE_REFRESH_MIN_MS, undefined, { leading: true, trailing: true }),
          )
        : NEVER;
      let upBefore = false;
      const timers = signals.connected$.pipe(
        switchMap((up) => {
          if (!up) return interval(REFRESH_INTERVAL_MS);
          const reconnected = upBefore ? of(0) : EMPTY;
          upBefore = true;
          return merge(reconnected, interval(LIVE_FALLBACK_MS));
        }),
      );
      return merge(wanted, timers);
    }),
  );
}

/**
 * A loaded value that may be older than the last attempt: `stale` holds the message of the reload that
 * failed, while the rows from the last good answer stay on screen.
 */
export type Refreshing<T> = Loaded<T> & { stale?: string };

/**
 * Requests now, again when the live channel announces a change `on` names (or every
 * REFRESH_INTERVAL_MS while the channel is down), and whenever `reload$` emits (after a change made
 * through the service). A failed reload keeps the last good value and marks it stale instead of
 * blanking the page.
 */
export function refreshing<T>(
  request: () => Observable<T>,
  reload$: Observable<unknown> = NEVER,
  on: ReloadOn = null,
): Observable<Refreshing<T>> {
  return merge(reload$, reloadTriggers(on)).pipe(
    startWith(null),
    switchMap(() => loaded(request())),
    scan(
      (previous: Refreshing<T>, next: Loaded<T>): Refreshing<T> =>
        next.state === 'error' && previous.state === 'ready' ? { ...previous, stale: next.message } : next,
      LOADING as Refreshing<T>,
    ),
  );
}

/**
 * The changes a data service makes itself: pass it as `refreshing`'s `reload$`, and send each write
 * through `after` (a DELETE, whose answer has no body, through `deleted`), so what it lists is read
 * again once the server answered.
 */
export class Changes extends Subject<void> {
  after<T>(request: Observable<T>): Observable<T> {
    return request.pipe(tap(() => this.next()));
  }

  deleted(request: Observable<unknown>): Observable<void> {
    return this.after(request.pipe(map(() => undefined)));
  }
}

/** A stream that starts with the HTTP answer and then follows a live source of the same value. */
export function followLive<T>(initial$: Observable<Refreshing<T>>, live: Observable<T>): Observable<Refreshing<T>> {
  return merge(initial$, live.pipe(map((value): Refreshing<T> => ({ state: 'ready', value }))));
}
