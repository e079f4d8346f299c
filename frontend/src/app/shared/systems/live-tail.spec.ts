import { Subject } from 'rxjs';

import { Refreshing } from '@console/core/refresh';
import { appendReport, LiveReport, withLiveTail } from './live-tail';
import { ChartsData } from './series';

const base: ChartsData = {
  from: 0,
  to: 60_000,
  source: 'raw',
  bucketSeconds: 1,
  series: [
    {
      name: 'cpu.usage_pct',
      instance: '',
      points: [
        [0, 1, 1, 1],
        [30_000, 2, 2, 2],
      ],
    },
    { name: 'disk.used_pct', instance: '/', points: [] },
  ],
};

const report = (t: number, metrics: LiveReport['metrics']): LiveReport => ({ ts: new Date(t).toISOString(), metrics });

describe('live chart tail', () => {
  it('appends the reported values to their series and slides the window', () => {
    const next = appendReport(base, report(90_000, [{ name: 'cpu.usage_pct', instance: '', value: 7 }]));
    expect(next.to).toBe(90_000);
    expect(next.from).toBe(30_000);
    expect(next.series[0].points).toEqual([
      [30_000, 2, 2, 2],
      [90_000, 7, 7, 7],
    ]);
    expect(next.series[1]).toBe(base.series[1]);
  });

  it('ignores reports older than the newest point and metrics of other series', () => {
    expect(appendReport(base, report(20_000, [{ name: 'cpu.usage_pct', instance: '', value: 7 }]))).toBe(base);
    expect(appendReport(base, report(90_000, [{ name: 'mem.used_pct', instance: '', value: 7 }]))).toBe(base);
  });

  it('starts again from each reload', () => {
    const loads$ = new Subject<Refreshing<ChartsData>>();
    const reports$ = new Subject<LiveReport>();
    const seen: Refreshing<ChartsData>[] = [];
    const subscription = withLiveTail(loads$, reports$).subscribe((state) => seen.push(state));
    loads$.next({ state: 'ready', value: base });
    reports$.next(report(90_000, [{ name: 'disk.used_pct', instance: '/', value: 50 }]));
    const last = seen.at(-1);
    expect(last?.state === 'ready' && last.value.series[1].points).toEqual([[90_000, 50, 50, 50]]);
    loads$.next({ state: 'ready', value: base });
    expect(seen.at(-1)).toEqual({ state: 'ready', value: base });
    subscription.unsubscribe();
  });
});
