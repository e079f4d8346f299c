import { Subject, Subscription, throwError, of, Observable } from 'rxjs';

import { BehaviorSubject } from 'rxjs';

import {
  connectRefreshToLive,
  followLive,
  LIVE_FALLBACK_MS,
  LIVE_REFRESH_MIN_MS,
  LiveChange,
  onChangeOf,
  onTopics,
  REFRESH_INTERVAL_MS,
  Refreshing,
  refreshing,
} from './refresh';

describe('refreshing', () => {
  let subscription: Subscription | undefined;

  beforeEach(() => jasmine.clock().install());
  afterEach(() => {
    subscription?.unsubscribe();
    jasmine.clock().uninstall();
  });

  function watch<T>(source: Observable<Refreshing<T>>): Refreshing<T>[] {
    const seen: Refreshing<T>[] = [];
    subscription = source.subscribe((state) => seen.push(state));
    return seen;
  }

  it('requests at once, then every 30 seconds, and after every reload signal', () => {
    let calls = 0;
    const reload$ = new Subject<void>();
    const seen = watch(refreshing(() => of(++calls), reload$));

    expect(seen).toEqual([{ state: 'ready', value: 1 }]);
    jasmine.clock().tick(REFRESH_INTERVAL_MS - 1);
    expect(calls).toBe(1);
    jasmine.clock().tick(1);
    expect(calls).toBe(2);
    reload$.next();
    expect(seen.at(-1)).toEqual({ state: 'ready', value: 3 });
  });

  it('keeps the last good answer when a reload fails, and says so', () => {
    let fail = false;
    const seen = watch(refreshing(() => (fail ? throwError(() => new Error('down')) : of('rows'))));

    fail = true;
    jasmine.clock().tick(REFRESH_INTERVAL_MS);
    expect(seen.at(-1)).toEqual({
      state: 'ready',
      value: 'rows',
      stale: 'Argus cannot be reached. Check your connection and try again.',
    });

    fail = false;
    jasmine.clock().tick(REFRESH_INTERVAL_MS);
    expect(seen.at(-1)).toEqual({ state: 'ready', value: 'rows' });
  });

  it('reports a failed first load as an error', () => {
    const seen = watch(refreshing(() => throwError(() => new Error('down'))));

    expect(seen[0].state).toBe('error');
  });

  describe('with the live channel', () => {
    let unplug: () => void = () => undefined;
    afterEach(() => unplug());

    it('reloads when the server announces a change of its topic instead of on a timer, and falls back to the timer while down', () => {
      const changes$ = new Subject<LiveChange>();
      const connected$ = new BehaviorSubject(true);
      unplug = connectRefreshToLive(changes$, connected$);
      let calls = 0;
      watch(refreshing(() => of(++calls), undefined, onTopics('rules')));
      expect(calls).toBe(1);

      jasmine.clock().tick(REFRESH_INTERVAL_MS);
      expect(calls).toBe(1);
      changes$.next({ topic: 'rules', ids: [1] });
      expect(calls).toBe(2);
      // a burst of changes is one reload at the start and one at the end of the window
      changes$.next({ topic: 'rules', ids: [2] });
      changes$.next({ topic: 'rules', ids: [3] });
      expect(calls).toBe(2);
      jasmine.clock().tick(LIVE_REFRESH_MIN_MS);
      expect(calls).toBe(3);
      // a change that was lost (the server's bus was down) is still picked up, slowly
      jasmine.clock().tick(LIVE_FALLBACK_MS);
      expect(calls).toBe(4);

      connected$.next(false);
      jasmine.clock().tick(REFRESH_INTERVAL_MS);
      expect(calls).toBe(5);
    });

    it('ignores the changes of other topics and ids, and a stream without topics reloads on none', () => {
      const changes$ = new Subject<LiveChange>();
      unplug = connectRefreshToLive(changes$, new BehaviorSubject(true));
      let rules = 0;
      let system7 = 0;
      let list = 0;
      watch(refreshing(() => of(++rules), undefined, onTopics('rules')));
      const second = refreshing(() => of(++system7), undefined, onChangeOf('systems', 7)).subscribe();
      const third = refreshing(() => of(++list)).subscribe();

      for (const change of [
        { topic: 'maintenance', ids: [1] },
        { topic: 'customers', ids: [7] },
        { topic: 'systems', ids: [8] },
        { topic: 'alerts', ids: [7] },
      ] as LiveChange[]) {
        changes$.next(change);
        jasmine.clock().tick(LIVE_REFRESH_MIN_MS);
      }
      expect([rules, system7, list]).toEqual([1, 1, 1]);
      changes$.next({ topic: 'systems', ids: [6, 7] });
      expect([rules, system7, list]).toEqual([1, 2, 1]);
      second.unsubscribe();
      third.unsubscribe();
    });

    it('loads again once after a reconnection (what happened meanwhile may not be replayed), not at the first connection', () => {
      const connected$ = new BehaviorSubject(false);
      unplug = connectRefreshToLive(new Subject<LiveChange>(), connected$);
      let calls = 0;
      watch(refreshing(() => of(++calls), undefined, onTopics('rules')));
      connected$.next(true);
      expect(calls).toBe(1);
      connected$.next(false);
      connected$.next(true);
      expect(calls).toBe(2);
      jasmine.clock().tick(LIVE_FALLBACK_MS - 1);
      expect(calls).toBe(2);
    });

    it('follows a live value after the first answer', () => {
      const live$ = new Subject<string>();
      const seen = watch(
        followLive(
          refreshing(() => of('http')),
          live$,
        ),
      );
      live$.next('live');
      expect(seen.map((state) => (state.state === 'ready' ? state.value : state.state))).toEqual(['http', 'live']);
    });
  });
});
