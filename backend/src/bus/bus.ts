/**
 * The event bus: anything that changes publishes a small event; the live hub
 * (one per app) subscribes. Two adapters behind this interface: Redis pub/sub
 * (production, tests) and in-memory (`REDIS_URL=memory://`, the demo only).
 */
export type BusHandler = (event: unknown) => void;

export interface Bus {
  /** Never throws: a Redis outage stops live updates, it does not fail the caller. Returns whether it was sent. */
  publish(topic: string, event: unknown): Promise<boolean>;
  /** Resolves once the subscription is registered; returns the function that ends it. */
  subscribe(topic: string, handler: BusHandler): Promise<() => Promise<void>>;
  /**
   * Whether a subscriber of this process listens to `topic`: a publisher whose event is costly to
   * build (a report's values) asks first. Argus runs one instance (instance-lock.ts) and its live
   * hub subscribes in the same process, so nobody elsewhere is left out.
   */
  listens(topic: string): boolean;
  close(): Promise<void>;
}
