/**
 * The availability arithmetic, exact to the millisecond, at month and DST boundaries in the
 * customer's zone. Europe/Berlin 2026: summer time from 29 March 02:00 (→ 03:00) to 25 October
 * 03:00 (→ 02:00), so March has 743 hours and October 745.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { windowOccurrences, type WindowSchedule } from '../maintenance/schedule.js';
import { combine, systemAvailability, type RangeFacts } from './availability.js';
import { localDateOf, monthRange, nextDay, parseLocalDate, previousMonthOf, startOfLocalDay } from './calendar.js';
import { intersect, mergeTagged, normalize, subtract, total } from './intervals.js';

const ms = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;
const BERLIN = 'Europe/Berlin';

describe('interval arithmetic', () => {
  it('merges overlapping and touching stretches and drops empty ones', () => {
    assert.deepEqual(
      normalize([
        [5, 7],
        [1, 3],
        [3, 4],
        [6, 9],
        [10, 10],
      ]),
      [
        [1, 4],
        [5, 9],
      ],
    );
  });

  it('subtracts and intersects half-open stretches', () => {
    assert.deepEqual(
      subtract(
        [[0, 10]],
        [
          [2, 3],
          [5, 12],
        ],
      ),
      [
        [0, 2],
        [3, 5],
      ],
    );
    assert.deepEqual(subtract([[0, 10]], [[0, 10]]), []);
    assert.deepEqual(
      intersect(
        [
          [0, 4],
          [6, 10],
        ],
        [[3, 7]],
      ),
      [
        [3, 4],
        [6, 7],
      ],
    );
    assert.equal(
      total([
        [0, 4],
        [2, 6],
      ]),
      6,
    );
  });

  it('keeps the ids of every alert in a merged stretch', () => {
    assert.deepEqual(
      mergeTagged([
        { start: 0, end: 5, ids: [1] },
        { start: 5, end: 8, ids: [2] },
        { start: 20, end: 30, ids: [3] },
      ]),
      [
        { start: 0, end: 8, ids: [1, 2] },
        { start: 20, end: 30, ids: [3] },
      ],
    );
  });
});

describe('calendar in the customer zone', () => {
  it('gives October 2026 in Berlin 745 hours and March 2026 743 hours', () => {
    const [octStart, octEnd] = monthRange(2026, 10, BERLIN);
    assert.equal(octStart, ms('2026-09-30T22:00:00Z'));
    assert.equal(octEnd, ms('2026-10-31T23:00:00Z'));
    assert.equal(octEnd - octStart, 745 * HOUR);
    const [marStart, marEnd] = monthRange(2026, 3, BERLIN);
    assert.equal(marStart, ms('2026-02-28T23:00:00Z'));
    assert.equal(marEnd, ms('2026-03-31T22:00:00Z'));
    assert.equal(marEnd - marStart, 743 * HOUR);
    const [decStart, decEnd] = monthRange(2026, 12, 'UTC');
    assert.equal(decStart, ms('2026-12-01T00:00:00Z'));
    assert.equal(decEnd, ms('2027-01-01T00:00:00Z'));
  });

  it('tells the previous month by the local date, not the UTC one', () => {
    // 00:30 on 1 November in Berlin is still 31 October in UTC
    assert.deepEqual(previousMonthOf(ms('2026-10-31T23:30:00Z'), BERLIN), { year: 2026, month: 10 });
    assert.deepEqual(previousMonthOf(ms('2026-10-31T22:59:59Z'), BERLIN), { year: 2026, month: 9 });
    assert.deepEqual(previousMonthOf(ms('2027-01-01T00:00:00Z'), 'UTC'), { year: 2026, month: 12 });
    assert.deepEqual(localDateOf(ms('2026-10-31T23:00:00Z'), BERLIN), { year: 2026, month: 11, day: 1 });
  });

  it('reads calendar dates strictly and starts a day at local midnight', () => {
    assert.equal(parseLocalDate('2026-02-30'), null);
    assert.equal(parseLocalDate('2026-2-3'), null);
    assert.deepEqual(parseLocalDate('2026-10-25'), { year: 2026, month: 10, day: 25 });
    const day = { year: 2026, month: 10, day: 25 };
    // the day of the autumn change lasts 25 hours
    assert.equal(startOfLocalDay(nextDay(day), BERLIN) - startOfLocalDay(day, BERLIN), 25 * HOUR);
    assert.deepEqual(nextDay({ year: 2026, month: 12, day: 31 }), { year: 2027, month: 1, day: 1 });
  });
});

describe('weekly maintenance occurrences across DST', () => {
  const sunday2am: WindowSchedule = { kind: 'weekly', weekdays: [0], startTime: '02:00', durationMinutes: 60 };

  it('places the Sunday 02:00 window of October 2026 at 02:00 local every week, the first 02:00 on the 25th', () => {
    const [from, to] = monthRange(2026, 10, BERLIN);
    assert.deepEqual(windowOccurrences(sunday2am, from, to, BERLIN), [
      [ms('2026-10-04T00:00:00Z'), ms('2026-10-04T01:00:00Z')],
      [ms('2026-10-11T00:00:00Z'), ms('2026-10-11T01:00:00Z')],
      [ms('2026-10-18T00:00:00Z'), ms('2026-10-18T01:00:00Z')],
      [ms('2026-10-25T00:00:00Z'), ms('2026-10-25T01:00:00Z')],
    ]);
  });

  it('starts the window after the gap on the spring change (02:00 does not exist on 29 March)', () => {
    const [from, to] = monthRange(2026, 3, BERLIN);
    const last = windowOccurrences(sunday2am, from, to, BERLIN).at(-1);
    assert.deepEqual(last, [ms('2026-03-29T01:00:00Z'), ms('2026-03-29T02:00:00Z')]);
  });

  it('includes an occurrence that began before the range and reaches into it', () => {
    const saturdayNight: WindowSchedule = { kind: 'weekly', weekdays: [6], startTime: '22:00', durationMinutes: 240 };
    // Saturday 31 October 22:00 CET to Sunday 1 November 02:00 CET; November starts at 23:00Z on the 31st
    const [from, to] = monthRange(2026, 11, BERLIN);
    const first = windowOccurrences(saturdayNight, from, to, BERLIN)[0];
    assert.deepEqual(first, [ms('2026-10-31T21:00:00Z'), ms('2026-11-01T01:00:00Z')]);
  });
});

describe('systemAvailability', () => {
  const [octFrom, octTo] = monthRange(2026, 10, BERLIN);
  const october: RangeFacts = { from: octFrom, to: octTo, dataFrom: null, inactive: [] };
  const always = { createdAt: 0, maintenance: [] };

  it('counts an outage across the repeated autumn hour by real time: 3 hours, not the 2 the wall clock shows', () => {
    // 25 October 01:00 CEST → 03:00 CET
    const result = systemAvailability(october, {
      ...always,
      alerts: [{ alertId: 7, start: ms('2026-10-24T23:00:00Z'), end: ms('2026-10-25T02:00:00Z') }],
    });
    assert.equal(result.stats.periodMs, 745 * HOUR);
    assert.equal(result.stats.downMs, 3 * HOUR);
    assert.equal(result.stats.monitoredMs, 745 * HOUR);
    assert.equal(result.stats.availability, (100 * 742) / 745);
    assert.deepEqual(result.periods, [
      { kind: 'down', start: ms('2026-10-24T23:00:00Z'), end: ms('2026-10-25T02:00:00Z'), alertIds: [7] },
    ]);
  });

  it('clips alerts at the local month boundaries, open ones at the end of the range', () => {
    const result = systemAvailability(october, {
      ...always,
      alerts: [
        // began in September (local), resolved at 01:00 CEST on 1 October
        { alertId: 1, start: ms('2026-09-30T12:00:00Z'), end: ms('2026-09-30T23:00:00Z') },
        // still open: down to the end of October, 00:00 CET on 1 November
        { alertId: 2, start: ms('2026-10-31T22:00:00Z'), end: null },
      ],
    });
    assert.equal(result.stats.downMs, HOUR + HOUR);
    assert.deepEqual(
      result.periods.map((p) => [p.start, p.end]),
      [
        [octFrom, ms('2026-09-30T23:00:00Z')],
        [ms('2026-10-31T22:00:00Z'), octTo],
      ],
    );
  });

  it('merges overlapping alerts into one down period naming both, so time is never counted twice', () => {
    const result = systemAvailability(october, {
      ...always,
      alerts: [
        { alertId: 4, start: ms('2026-10-10T10:00:00Z'), end: ms('2026-10-10T12:00:00Z') },
        { alertId: 3, start: ms('2026-10-10T11:00:00Z'), end: ms('2026-10-10T13:00:00Z') },
      ],
    });
    assert.equal(result.stats.downMs, 3 * HOUR);
    assert.deepEqual(result.periods[0]?.alertIds, [3, 4]);
  });

  it('leaves maintenance out of the measured time and splits a down period it cuts', () => {
    const sunday2am: WindowSchedule = { kind: 'weekly', weekdays: [0], startTime: '02:00', durationMinutes: 60 };
    const maintenance = windowOccurrences(sunday2am, octFrom, octTo, BERLIN);
    // down from 01:00 to 04:00 CET on 25 October; the window covers 02:00–03:00 CEST (00:00–01:00Z)
    const result = systemAvailability(october, {
      createdAt: 0,
      maintenance,
      alerts: [{ alertId: 9, start: ms('2026-10-24T22:30:00Z'), end: ms('2026-10-25T03:00:00Z') }],
    });
    assert.equal(result.stats.maintenanceMs, 4 * HOUR);
    assert.equal(result.stats.monitoredMs, 741 * HOUR);
    assert.equal(result.stats.downMs, 1.5 * HOUR + 2 * HOUR);
    assert.equal(result.stats.availability, (100 * (741 - 3.5)) / 741);
    const around = result.periods.filter((p) => p.start >= ms('2026-10-24T00:00:00Z'));
    assert.deepEqual(around, [
      { kind: 'down', start: ms('2026-10-24T22:30:00Z'), end: ms('2026-10-25T00:00:00Z'), alertIds: [9] },
      { kind: 'maintenance', start: ms('2026-10-25T00:00:00Z'), end: ms('2026-10-25T01:00:00Z') },
      { kind: 'down', start: ms('2026-10-25T01:00:00Z'), end: ms('2026-10-25T03:00:00Z'), alertIds: [9] },
    ]);
  });

  it('counts inactivity before maintenance, and an unknown stretch before the retention horizon before both', () => {
    const facts: RangeFacts = {
      ...october,
      dataFrom: ms('2026-10-05T00:00:00Z'),
      inactive: [[ms('2026-10-03T00:00:00Z'), ms('2026-10-12T00:00:00Z')]],
    };
    const result = systemAvailability(facts, {
      createdAt: 0,
      maintenance: [[ms('2026-10-11T00:00:00Z'), ms('2026-10-13T00:00:00Z')]],
      alerts: [{ alertId: 5, start: ms('2026-10-01T00:00:00Z'), end: ms('2026-10-20T00:00:00Z') }],
    });
    const { stats } = result;
    assert.equal(stats.unknownMs, ms('2026-10-05T00:00:00Z') - octFrom);
    assert.equal(stats.inactiveMs, 7 * 24 * HOUR);
    assert.equal(stats.maintenanceMs, 24 * HOUR);
    assert.equal(stats.downMs, 7 * 24 * HOUR);
    assert.equal(stats.monitoredMs, stats.periodMs - stats.unknownMs - stats.inactiveMs - stats.maintenanceMs);
    assert.deepEqual(
      result.periods.map((p) => p.kind),
      ['unknown', 'inactive', 'maintenance', 'down'],
    );
  });

  it('measures a system from its creation, and gives no figure when nothing was monitored', () => {
    const created = ms('2026-10-16T22:00:00Z');
    const result = systemAvailability(october, { createdAt: created, maintenance: [], alerts: [] });
    assert.equal(result.stats.periodMs, octTo - created);
    assert.equal(result.stats.availability, 100);
    const later = systemAvailability(october, { createdAt: octTo + 1, maintenance: [], alerts: [] });
    assert.equal(later.stats.periodMs, 0);
    assert.equal(later.stats.availability, null);
  });

  it('weights a group by monitored time: a system down half of a short life weighs less', () => {
    const full = systemAvailability(october, {
      ...always,
      alerts: [{ alertId: 1, start: octFrom, end: octFrom + 5 * HOUR }],
    }).stats;
    const young = systemAvailability(october, {
      createdAt: octTo - 10 * HOUR,
      maintenance: [],
      alerts: [{ alertId: 2, start: octTo - 5 * HOUR, end: null }],
    }).stats;
    const group = combine([full, young]);
    assert.equal(group.monitoredMs, 755 * HOUR);
    assert.equal(group.downMs, 10 * HOUR);
    assert.equal(group.availability, (100 * 745) / 755);
    assert.equal(combine([]).availability, null);
  });
});
