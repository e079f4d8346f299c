/**
 * The replay buffer behind `after` (docs/protocol.md "Live channel"): the
 * messages of the last 10 minutes of this server run, bounded in total bytes,
 * oldest out first. It holds serialised data, so a replay costs no JSON work.
 */
import type { Reach } from '../bus/changes.js';
import type { Clock } from '../lib/clock.js';

export interface Buffered {
  seq: number;
  topic: string;
  /** Who may receive it (null: decided by the topic, as for `system:<id>`, whose owner the hub follows). */
  reach: Reach | null;
  dataJson: string;
  at: number;
}

export interface ReplayLimits {
  maxAgeMs: number;
  maxBytes: number;
}

export const DEFAULT_REPLAY_LIMITS: ReplayLimits = { maxAgeMs: 10 * 60_000, maxBytes: 64 * 1024 * 1024 };
const ENTRY_OVERHEAD = 96;

export function createReplayBuffer(clock: Clock, limits: ReplayLimits = DEFAULT_REPLAY_LIMITS) {
  // one queue in arrival order; per-topic lookups scan it (replays are rare: one per reconnect)
  let queue: Buffered[] = [];
  let head = 0;
  let bytes = 0;

  const sizeOf = (entry: Buffered) => entry.dataJson.length * 2 + entry.topic.length * 2 + ENTRY_OVERHEAD;

  function evict(now: number) {
    while (head < queue.length) {
      const oldest = queue[head] as Buffered;
      if (bytes <= limits.maxBytes && now - oldest.at <= limits.maxAgeMs) break;
      bytes -= sizeOf(oldest);
      head += 1;
    }
    // compact now and then so the array does not grow without bound
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  }

  return {
    add(entry: Omit<Buffered, 'at'>): void {
      const now = clock.now().getTime();
      const stored = { ...entry, at: now };
      queue.push(stored);
      bytes += sizeOf(stored);
      evict(now);
    },

    /** Messages of `topic` after `afterSeq` still held, oldest first. */
    since(topic: string, afterSeq: number): Buffered[] {
      evict(clock.now().getTime());
      const found: Buffered[] = [];
      for (let i = head; i < queue.length; i += 1) {
        const entry = queue[i] as Buffered;
        if (entry.seq > afterSeq && entry.topic === topic) found.push(entry);
      }
      return found;
    },

    stats: () => ({ entries: queue.length - head, bytes }),
  };
}

export type ReplayBuffer = ReturnType<typeof createReplayBuffer>;
