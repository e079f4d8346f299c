/**
 * Snapshot topics (`systems.list`, `alerts.counts`, `overview`): computed once per
 * audience (the accounts that see the same customers), serialised once,
 * re-pushed only when the content changed, and at most once per 250 ms per
 * topic (architecture.md "Live path": coalesce bursts).
 */
import type { Logger } from '../lib/logger.js';
import { frames, SNAPSHOT_TOPICS, type SnapshotTopic } from './protocol.js';
import type { Visible } from '../lib/access.js';

/** What a snapshot subscriber needs: where to send, and which revision it has. */
export interface SnapshotSubscriber {
  sidJson: string;
  sentRev: number;
  send(frame: string): void;
}

/** Customers an account sees: null for ADMIN (everything). */

export type ComputeSnapshot = (topic: SnapshotTopic, visible: Visible) => Promise<unknown>;

interface TopicState {
  subscribers: Set<SnapshotSubscriber>;
  rev: number;
  json: string | null;
  dirty: boolean;
  computing: boolean;
  timer: NodeJS.Timeout | null;
  lastPushAt: number;
}

export interface Audience {
  key: string;
  visible: Visible;
  members: number;
  topics: Map<SnapshotTopic, TopicState>;
}

export function audienceKey(visible: Visible): string {
  return visible === null ? 'all' : `c:${[...visible].sort((a, b) => a - b).join(',')}`;
}

export interface SnapshotsDeps {
  compute: ComputeSnapshot;
  log: Logger;
  minIntervalMs?: number;
  /** Told of every invalidation, whether or not an audience has the topics (overview/recent.ts). */
  onInvalidate?: ((topics: readonly SnapshotTopic[]) => void) | undefined;
}

/** The overview aggregates the whole fleet: at most one computation a second per audience. */
/** Changes that move the overview without a system or alert event (a window, an incident, a customer). */
export const OVERVIEW_CHANGES: ReadonlySet<string> = new Set(['maintenance', 'incidents', 'customers']);

const TOPIC_MIN_INTERVAL_MS: Partial<Record<SnapshotTopic, number>> = { overview: 1000 };

export function createSnapshots({ compute, log, minIntervalMs = 250, onInvalidate }: SnapshotsDeps) {
  const audiences = new Map<string, Audience>();
  let revCounter = 0; // one counter for the run: revisions only ever grow for a subscriber
  let closed = false;

  function topicState(audience: Audience, topic: SnapshotTopic): TopicState {
    let state = audience.topics.get(topic);
    if (!state) {
      state = {
        subscribers: new Set(),
        rev: 0,
        json: null,
        dirty: false,
        computing: false,
        timer: null,
        lastPushAt: 0,
      };
      audience.topics.set(topic, state);
    }
    return state;
  }

  function schedule(audience: Audience, topic: SnapshotTopic, state: TopicState) {
    if (state.timer || state.computing || closed) return;
    const interval = Math.max(minIntervalMs, TOPIC_MIN_INTERVAL_MS[topic] ?? 0);
    const delay = Math.max(0, state.lastPushAt + interval - Date.now());
    state.timer = setTimeout(() => void run(audience, topic, state), delay);
  }

  async function run(audience: Audience, topic: SnapshotTopic, state: TopicState) {
    state.timer = null;
    if (state.subscribers.size === 0 || closed) return;
    state.dirty = false;
    state.computing = true;
    try {
      const json = JSON.stringify(await compute(topic, audience.visible));
      if (json !== state.json) {
        state.json = json;
        state.rev = ++revCounter;
      }
      state.lastPushAt = Date.now();
      for (const subscriber of state.subscribers) {
        if (subscriber.sentRev === state.rev) continue;
        subscriber.sentRev = state.rev;
        subscriber.send(frames.snap(subscriber.sidJson, state.rev, state.json as string));
      }
    } catch (error) {
      // the database may be away: keep what subscribers have, try again on the next change or ping
      log.warn({ err: { message: (error as Error).message }, topic }, 'Live snapshot failed');
    } finally {
      state.computing = false;
    }
    if (state.dirty) schedule(audience, topic, state);
  }

  return {
    /** The audience of a visible set, created on first use; call `leave` when the connection ends. */
    join(visible: Visible): Audience {
      const key = audienceKey(visible);
      let audience = audiences.get(key);
      if (!audience) {
        audience = { key, visible, members: 0, topics: new Map() };
        audiences.set(key, audience);
      }
      audience.members += 1;
      return audience;
    },

    leave(audience: Audience): void {
      audience.members -= 1;
      if (audience.members > 0) return;
      for (const state of audience.topics.values()) if (state.timer) clearTimeout(state.timer);
      audiences.delete(audience.key);
    },

    /** Sends the current snapshot now when it is fresh, else as soon as it is computed. */
    subscribe(audience: Audience, topic: SnapshotTopic, subscriber: SnapshotSubscriber): void {
      const state = topicState(audience, topic);
      state.subscribers.add(subscriber);
      const fresh = state.json !== null && !state.dirty && !state.computing && !state.timer;
      if (fresh) {
        subscriber.sentRev = state.rev;
        subscriber.send(frames.snap(subscriber.sidJson, state.rev, state.json as string));
        return;
      }
      // the first snapshot of a subscription does not wait for the burst window
      if (state.json === null && !state.computing && state.timer) {
        clearTimeout(state.timer);
        state.timer = null;
      }
      state.dirty = true;
      if (state.json === null) state.lastPushAt = 0;
      schedule(audience, topic, state);
    },

    unsubscribe(audience: Audience, topic: SnapshotTopic, subscriber: SnapshotSubscriber): void {
      audience.topics.get(topic)?.subscribers.delete(subscriber);
    },

    /** Content may have changed for these audiences (all when `filter` is absent). */
    invalidate(topics: readonly SnapshotTopic[] = SNAPSHOT_TOPICS, filter?: (audience: Audience) => boolean): void {
      onInvalidate?.(topics);
      for (const audience of audiences.values()) {
        if (filter && !filter(audience)) continue;
        for (const topic of topics) {
          const state = audience.topics.get(topic);
          if (!state) continue;
          if (state.subscribers.size === 0) {
            state.json = null; // nobody listens: recompute when someone subscribes again
            continue;
          }
          state.dirty = true;
          schedule(audience, topic, state);
        }
      }
    },

    audienceCount: () => audiences.size,

    close(): void {
      closed = true;
      for (const audience of audiences.values())
        for (const state of audience.topics.values()) if (state.timer) clearTimeout(state.timer);
    },
  };
}

export type Snapshots = ReturnType<typeof createSnapshots>;
