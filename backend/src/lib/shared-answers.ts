/**
 * Answers computed at most once per `ttlMs` per key in this process: callers within that time share
 * the pending or finished promise. A failure is not kept (the next caller tries again: the database
 * may be back). At most `maxEntries` are held: expired entries go first, then the oldest (a Map
 * iterates in insertion order), so keys chosen by strangers cannot grow it without end.
 */
import type { Clock } from './clock.js';

interface Entry<T> {
  startedAt: number;
  answer: Promise<T>;
}

export function sharedAnswers<T>(options: { clock: Clock; ttlMs: number; maxEntries: number }) {
  const { clock, ttlMs, maxEntries } = options;
  const entries = new Map<string, Entry<T>>();

  /** Computes afresh and keeps the computation for the callers of `shared` within `ttlMs`. */
  function fresh(key: string, compute: () => Promise<T>): Promise<T> {
    const now = clock.now().getTime();
    entries.delete(key);
    if (entries.size >= maxEntries) {
      for (const [other, entry] of entries) if (now - entry.startedAt > ttlMs) entries.delete(other);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    }
    const entry: Entry<T> = { startedAt: now, answer: compute() };
    entries.set(key, entry);
    entry.answer.catch(() => {
      if (entries.get(key) === entry) entries.delete(key);
    });
    return entry.answer;
  }

  return {
    fresh,
    /** A computation of `key` started within `ttlMs` (and not forgotten since), else a fresh one. */
    shared(key: string, compute: () => Promise<T>): Promise<T> {
      const known = entries.get(key);
      if (known && clock.now().getTime() - known.startedAt <= ttlMs) return known.answer;
      return fresh(key, compute);
    },
    forget(key: string): void {
      entries.delete(key);
    },
    forgetAll(): void {
      entries.clear();
    },
  };
}
