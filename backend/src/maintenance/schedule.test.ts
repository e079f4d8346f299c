import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { windowCovers, zonedInstant, type WindowSchedule } from './schedule.js';

const at = (iso: string) => new Date(iso);

describe('windowCovers', () => {
  it('covers a one-off window from its start (inclusive) to its end (exclusive), whatever the zone', () => {
    const once: WindowSchedule = {
      kind: 'once',
      startsAt: at('2026-03-01T10:00:00Z'),
      endsAt: at('2026-03-01T12:00:00Z'),
    };
    assert.equal(windowCovers(once, at('2026-03-01T09:59:59Z'), 'Europe/Berlin'), false);
    assert.equal(windowCovers(once, at('2026-03-01T10:00:00Z'), 'Europe/Berlin'), true);
    assert.equal(windowCovers(once, at('2026-03-01T11:59:59Z'), 'America/New_York'), true);
    assert.equal(windowCovers(once, at('2026-03-01T12:00:00Z'), 'UTC'), false);
  });

  // Sundays 02:00 for 60 minutes, Europe/Berlin: CET (+1) in winter, CEST (+2) from 29 March 2026
  const sunday2am: WindowSchedule = { kind: 'weekly', weekdays: [0], startTime: '02:00', durationMinutes: 60 };

  it('keeps a weekly window at its local time across the spring DST change', () => {
    // 22 March (CET): 02:00 local = 01:00 UTC
    assert.equal(windowCovers(sunday2am, at('2026-03-22T00:59:00Z'), 'Europe/Berlin'), false);
    assert.equal(windowCovers(sunday2am, at('2026-03-22T01:00:00Z'), 'Europe/Berlin'), true);
    assert.equal(windowCovers(sunday2am, at('2026-03-22T01:59:00Z'), 'Europe/Berlin'), true);
    assert.equal(windowCovers(sunday2am, at('2026-03-22T02:00:00Z'), 'Europe/Berlin'), false);
    // 5 April (CEST): 02:00 local = 00:00 UTC
    assert.equal(windowCovers(sunday2am, at('2026-04-05T00:00:00Z'), 'Europe/Berlin'), true);
    assert.equal(windowCovers(sunday2am, at('2026-04-05T01:00:00Z'), 'Europe/Berlin'), false);
    assert.equal(windowCovers(sunday2am, at('2026-04-04T23:59:00Z'), 'Europe/Berlin'), false);
  });

  it('starts a window whose local start is skipped by the spring change right after the gap', () => {
    // 29 March 2026, 02:00–03:00 local does not exist in Berlin; 02:30 reads as 03:30 CEST = 01:30 UTC
    const skipped: WindowSchedule = { kind: 'weekly', weekdays: [0], startTime: '02:30', durationMinutes: 30 };
    assert.equal(windowCovers(skipped, at('2026-03-29T01:29:00Z'), 'Europe/Berlin'), false);
    assert.equal(windowCovers(skipped, at('2026-03-29T01:30:00Z'), 'Europe/Berlin'), true);
    assert.equal(windowCovers(skipped, at('2026-03-29T02:00:00Z'), 'Europe/Berlin'), false);
  });

  it('starts at the first of the two local times repeated by the autumn change', () => {
    // 25 October 2026, 02:30 local happens at 00:30 UTC (CEST) and again at 01:30 UTC (CET)
    const repeated: WindowSchedule = { kind: 'weekly', weekdays: [0], startTime: '02:30', durationMinutes: 30 };
    assert.equal(windowCovers(repeated, at('2026-10-25T00:30:00Z'), 'Europe/Berlin'), true);
    assert.equal(windowCovers(repeated, at('2026-10-25T01:00:00Z'), 'Europe/Berlin'), false);
    assert.equal(zonedInstant(Date.UTC(2026, 9, 25, 2, 30), 'Europe/Berlin'), Date.UTC(2026, 9, 25, 0, 30));
  });

  it('covers a window that runs past midnight into the next local day, and only on its weekdays', () => {
    // Fridays 23:00 for 3 hours, New York (EST, -5 in January)
    const friday: WindowSchedule = { kind: 'weekly', weekdays: [5], startTime: '23:00', durationMinutes: 180 };
    assert.equal(windowCovers(friday, at('2026-01-10T05:30:00Z'), 'America/New_York'), true); // Sat 00:30 local
    assert.equal(windowCovers(friday, at('2026-01-10T07:00:00Z'), 'America/New_York'), false); // Sat 02:00 local
    assert.equal(windowCovers(friday, at('2026-01-11T05:30:00Z'), 'America/New_York'), false); // Sun 00:30 local
  });

  it('covers a week-long window and reads weekdays in the zone, not in UTC', () => {
    const week: WindowSchedule = { kind: 'weekly', weekdays: [1], startTime: '00:00', durationMinutes: 10_080 };
    assert.equal(windowCovers(week, at('2026-01-11T12:00:00Z'), 'UTC'), true); // Sunday, 6 days in
    // Monday 00:00 in Tokyo is Sunday 15:00 UTC
    const mondayTokyo: WindowSchedule = { kind: 'weekly', weekdays: [1], startTime: '00:00', durationMinutes: 60 };
    assert.equal(windowCovers(mondayTokyo, at('2026-01-11T15:30:00Z'), 'Asia/Tokyo'), true);
    assert.equal(windowCovers(mondayTokyo, at('2026-01-11T15:30:00Z'), 'UTC'), false);
  });
});
