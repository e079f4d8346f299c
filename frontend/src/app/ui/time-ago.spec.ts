import { timeAgo } from './time-ago';

describe('timeAgo', () => {
  const now = Date.parse('2026-11-21T10:00:00.000Z');
  const before = (ms: number) => new Date(now - ms).toISOString();

  it('says how long ago, in the largest whole unit', () => {
    expect(timeAgo(before(20_000), now)).toBe('just now');
    expect(timeAgo(before(3 * 60_000 + 10_000), now)).toBe('3 min ago');
    expect(timeAgo(before(5 * 3_600_000 + 1), now)).toBe('5 h ago');
    expect(timeAgo(before(12 * 86_400_000), now)).toBe('12 d ago');
  });

  it('treats a small clock difference as now, and says "Never" without a time', () => {
    expect(timeAgo(before(-30_000), now)).toBe('just now');
    expect(timeAgo(before(-10 * 60_000), now)).toBe('in the future');
    expect(timeAgo(null, now)).toBe('Never');
  });
});
