import { Subject, Subscription, throwError, of, Observable } from 'rxjs';

import { REFRESH_INTERVAL_MS, Refreshing, refreshing } from './refresh';

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
});
