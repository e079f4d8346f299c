import { alertDuration, alertText, zonedTime } from './alert-text';

describe('alert texts', () => {
  const now = Date.parse('2026-11-28T10:26:30Z');

  it("turns an exact instant into the customer's clock time with how long ago", () => {
    expect(alertText('No report since 2026-11-28T10:14:44.479Z', 'UTC', now)).toBe(
      'No report since 10:14 (11 min ago)',
    );
    expect(alertText('No report since 2026-11-28T10:14:44.479Z', 'Europe/Berlin', now)).toBe(
      'No report since 11:14 (11 min ago)',
    );
    expect(alertText('Filesystem /srv is read-only', 'Europe/Berlin', now)).toBe('Filesystem /srv is read-only');
  });

  it('names the day when the time was not today in that zone', () => {
    expect(zonedTime('2026-11-27T22:30:00Z', 'UTC', now)).toBe('27 Nov, 22:30');
    // already the 28th in Tokyo, like now
    expect(zonedTime('2026-11-27T22:30:00Z', 'Asia/Tokyo', now)).toBe('07:30');
  });

  it('says how long a resolved alert lasted, nothing for an open one', () => {
    expect(alertDuration('2026-11-28T08:00:00Z', '2026-11-28T10:12:00Z')).toBe('2 h 12 min');
    expect(alertDuration('2026-11-28T08:00:00Z', null)).toBeNull();
  });
});
