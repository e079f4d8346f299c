/**
 * The heartbeat of the hub (ping every 25 s, docs/limits.md "Time limits"). Injected so tests
 * drive it by hand instead of waiting 50 seconds for a dead peer.
 */
export interface Ticker {
  /** Calls `fn` every `ms`; returns the function that stops it. */
  every(ms: number, fn: () => void): () => void;
}

export const realTicker: Ticker = {
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** A ticker tests fire with `tick()`; it runs every registered callback once. */
export class ManualTicker implements Ticker {
  private readonly callbacks = new Set<() => void>();
  every(_ms: number, fn: () => void): () => void {
    this.callbacks.add(fn);
    return () => this.callbacks.delete(fn);
  }
  tick(): void {
    for (const fn of this.callbacks) fn();
  }
}
