/**
 * One computation of the overview for both ways in at open. The console asks GET /api/overview and
 * subscribes to the live snapshot `overview` at the same moment, so the server computed the whole
 * fleet twice, the two computations slowing each other (issue 16 item 1: ≤ 1 s at 10,000 systems).
 * HTTP always computes afresh (an API client reads its own writes) and leaves its computation
 * here; the live snapshot may take one for the same visible set that is running or finished within
 * `maxAgeMs`, unless the overview may have changed since it started: the live hub's invalidation of
 * the `overview` snapshot calls `forget` (every change it learns of, and its pings). A change whose
 * event the hub has not yet received when the snapshot takes a shared answer invalidates that
 * snapshot once it arrives, so the live page follows as it did with two computations.
 */
import type { Visible } from '../lib/access.js';
import type { Clock } from '../lib/clock.js';

/** Shared for this long: the snapshot's subscription follows the HTTP request within a second. */
export const SHARE_OVERVIEW_MS = 2_000;

interface Recent<T> {
  startedAt: number;
  answer: Promise<T>;
}

const keyOf = (visible: Visible) => (visible === null ? 'all' : [...visible].sort((a, b) => a - b).join(','));

export function shareRecentOverviews<T>(
  compute: (visible: Visible) => Promise<T>,
  options: { clock: Clock; maxAgeMs?: number },
) {
  const { clock, maxAgeMs = SHARE_OVERVIEW_MS } = options;
  const recent = new Map<string, Recent<T>>();
  const prune = (now: number) => {
    for (const [key, entry] of recent) if (now - entry.startedAt > maxAgeMs) recent.delete(key);
  };
  /** A fresh computation, which the snapshot may share for a moment. */
  function computeAfresh(visible: Visible): Promise<T> {
    const key = keyOf(visible);
    const now = clock.now().getTime();
    prune(now);
    const entry: Recent<T> = { startedAt: now, answer: compute(visible) };
    recent.set(key, entry);
    // a failure is not shared (the database may be back for the next caller)
    entry.answer.catch(() => {
      if (recent.get(key) === entry) recent.delete(key);
    });
    return entry.answer;
  }
  return {
    compute: computeAfresh,
    /** A computation started within `maxAgeMs` and since the last `forget`, else a fresh one. */
    recentOrCompute(visible: Visible): Promise<T> {
      const known = recent.get(keyOf(visible));
      if (known && clock.now().getTime() - known.startedAt <= maxAgeMs) return known.answer;
      return computeAfresh(visible);
    },
    /** What the overview shows may have changed: the next snapshot computes afresh. */
    forget(): void {
      recent.clear();
    },
  };
}

export type SharedOverviews<T> = ReturnType<typeof shareRecentOverviews<T>>;
