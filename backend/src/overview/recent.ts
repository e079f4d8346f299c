/**
 * One computation of the overview for both ways in at open. The console asks GET /api/overview and
 * subscribes to the live snapshot `overview` at the same moment, so the server computed the whole
 * fleet twice, the two computations slowing each other (≤ 1 s at 10,000 systems).
 * HTTP always computes afresh (an API client reads its own writes) and leaves its computation
 * here; the live snapshot may take one for the same visible set that is running or finished within
 * `maxAgeMs`, unless the overview may have changed since it started: the live hub's invalidation of
 * the `overview` snapshot calls `forget` (every change it learns of, and its pings). A change whose
 * event the hub has not yet received when the snapshot takes a shared answer invalidates that
 * snapshot once it arrives, so the live page follows as it did with two computations.
 */
import type { Visible } from '../lib/access.js';
import type { Clock } from '../lib/clock.js';
import { sharedAnswers } from '../lib/shared-answers.js';

/** Shared for this long: the snapshot's subscription follows the HTTP request within a second. */
export const SHARE_OVERVIEW_MS = 2_000;

const keyOf = (visible: Visible) => (visible === null ? 'all' : [...visible].sort((a, b) => a - b).join(','));
/** Visible sets are few (ADMIN, and one per operator or viewer's grants); the bound is a guard. */
const MAX_SETS = 1000;

export function shareRecentOverviews<T>(
  compute: (visible: Visible) => Promise<T>,
  options: { clock: Clock; maxAgeMs?: number },
) {
  const recent = sharedAnswers<T>({
    clock: options.clock,
    ttlMs: options.maxAgeMs ?? SHARE_OVERVIEW_MS,
    maxEntries: MAX_SETS,
  });
  return {
    /** A fresh computation, which the snapshot may share for a moment. */
    compute: (visible: Visible): Promise<T> => recent.fresh(keyOf(visible), () => compute(visible)),
    /** A computation started within `maxAgeMs` and since the last `forget`, else a fresh one. */
    recentOrCompute: (visible: Visible): Promise<T> => recent.shared(keyOf(visible), () => compute(visible)),
    /** What the overview shows may have changed: the next snapshot computes afresh. */
    forget: (): void => recent.forgetAll(),
  };
}

export type SharedOverviews<T> = ReturnType<typeof shareRecentOverviews<T>>;
