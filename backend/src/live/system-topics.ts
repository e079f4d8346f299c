/**
 * The `system:<id>` topics of the hub: one bus subscription per followed system, with the system's
 * customer (who may follow it). A subscription outlives its last subscriber for a while, so a
 * reconnecting console can replay what it missed.
 */
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../lib/logger.js';

/** A `system:<id>` bus subscription outlives its last subscriber this long, so a reconnect can replay. */
const SYSTEM_TOPIC_LINGER_MS = 10 * 60_000;

interface SystemTopic {
  customerId: number | null;
  off: Promise<() => Promise<void>>;
  idleSince: number | null;
}

export interface SystemTopicsDeps {
  bus: Bus;
  log: Logger;
  customerOfSystem(systemId: number): Promise<number | null>;
  /** A report of a followed system arrived on the bus. */
  deliver(topic: string, event: unknown): void;
  /** Whether anyone still subscribes to `system:<id>`. */
  hasSubscribers(topic: string): boolean;
}

export function createSystemTopics({ bus, log, customerOfSystem, deliver, hasSubscribers }: SystemTopicsDeps) {
  const topics = new Map<number, SystemTopic>();

  return {
    /** The customer of a followed system (null: not followed, or gone). */
    ownerOf: (systemId: number): number | null => topics.get(systemId)?.customerId ?? null,

    follow(systemId: number, customerId: number): void {
      const entry = topics.get(systemId);
      if (entry) {
        entry.customerId = customerId;
        entry.idleSince = null;
        return;
      }
      const topic = `system:${systemId}`;
      topics.set(systemId, {
        customerId,
        idleSince: null,
        off: bus.subscribe(topic, (event) => deliver(topic, event)),
      });
    },

    /** A system may have moved to another customer (or gone): re-read who may follow it. */
    async refreshOwner(systemId: number): Promise<void> {
      const entry = topics.get(systemId);
      if (!entry) return;
      try {
        entry.customerId = await customerOfSystem(systemId);
      } catch (error) {
        log.warn({ err: { message: (error as Error).message }, systemId }, 'Could not read the customer of a system');
      }
    },

    /** The customer of a system as just read (null: gone): who may follow it from now on. */
    setOwner(systemId: number, customerId: number | null): void {
      const entry = topics.get(systemId);
      if (entry) entry.customerId = customerId;
    },

    followed: (): number[] => [...topics.keys()],

    dropIdle(now: number): void {
      for (const [systemId, entry] of topics) {
        if (hasSubscribers(`system:${systemId}`)) continue;
        entry.idleSince ??= now;
        if (now - entry.idleSince < SYSTEM_TOPIC_LINGER_MS) continue;
        topics.delete(systemId);
        void entry.off.then((off) => off()).catch(() => undefined);
      }
    },

    offs: () => [...topics.values()].map((entry) => entry.off),
  };
}
