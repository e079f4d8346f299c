import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

import { AuthService } from '@console/core/auth';
import { userBody } from '@console/core/auth-testing';
import { provideForTests, settle } from '@console/testing';
import { FleetTrend, summarize } from './fleet-trend';
import { FleetTrend as Trend, TREND_URL } from './overview-api';

const NOW = Date.UTC(2026, 5, 10, 12);
/** 24 points an hour apart, the last one now, from [systems down, alerts open] oldest first. */
const points = (values: [number, number][]): Trend['points'] =>
  values.map(([systemsDown, alertsOpen], i) => ({
    at: new Date(NOW - (values.length - 1 - i) * 3_600_000).toISOString(),
    systemsDown,
    alertsOpen,
  }));

describe('FleetTrend: systems down and alerts open over 24 hours', () => {
  // 10 systems down from 10 h ago to 5 h ago, 2 for the last 2 hours; alerts rising to 12 now
  const day = points(
    Array.from({ length: 24 }, (_, i): [number, number] => {
      const hoursAgo = 23 - i;
      const down = hoursAgo <= 10 && hoursAgo > 5 ? 10 : hoursAgo <= 2 ? 2 : 0;
      return [down, hoursAgo <= 2 ? 12 : down];
    }),
  );

  it('says each line in words: now, and the peak with how long ago', () => {
    expect(summarize(day, (p) => p.systemsDown)).toBe('now 2, peak 10 (6 h ago)');
    expect(summarize(day, (p) => p.alertsOpen)).toBe('now 12, the 24 h peak');
    expect(summarize(points([[0, 0]]), (p) => p.systemsDown)).toBe('none in 24 h');
  });

  it('draws a bar an hour under its words, the bars hidden from screen readers', async () => {
    TestBed.configureTestingModule({ providers: provideForTests() });
    TestBed.inject(AuthService).updateUser(userBody());
    const http = TestBed.inject(HttpTestingController);
    const fixture = TestBed.createComponent(FleetTrend);
    await settle(fixture);
    http.expectOne(TREND_URL).flush({ points: day });
    await settle(fixture);
    const page: HTMLElement = fixture.nativeElement;

    const rows = Array.from(page.querySelectorAll('.row'), (row) => [
      row.querySelector('dt')?.textContent?.trim(),
      row.querySelector('.summary')?.textContent?.trim(),
    ]);
    expect(rows).toEqual([
      ['Systems down, 24 h', 'now 2, peak 10 (6 h ago)'],
      ['Alerts open, 24 h', 'now 12, the 24 h peak'],
    ]);
    const bars = page.querySelector('.row .bars')!;
    expect(bars.getAttribute('aria-hidden')).toBe('true');
    const heights = Array.from(bars.querySelectorAll<HTMLElement>('.bar'), (bar) => bar.style.height);
    expect(heights.length).toBe(24);
    expect(heights[0]).toBe('0%');
    expect(heights[23 - 8]).toBe('100%');
    expect(heights[23]).toBe('20%');
  });
});
