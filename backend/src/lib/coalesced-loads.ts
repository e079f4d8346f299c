/**
 * Loads by key that share their queries: the keys asked for in one turn of the event loop go out
 * together at its end, and once `maxInFlight` loads are in flight the keys asked for meanwhile wait
 * and go out together when one returns. With one in flight, requests spread over time share a round
 * trip as well as those of one turn, and a burst of a thousand asks costs a few queries, not a
 * thousand. A load still starts after it was asked for: nothing is cached here.
 */
export type CoalescedLoad<K, V> = (key: K) => Promise<V | undefined>;

interface Waiter<V> {
  resolve(value: V | undefined): void;
  reject(error: unknown): void;
}

/**
 * `loadMany` answers the values of the keys it found; a key it leaves out is answered undefined.
 * `maxInFlight`: loads at once at most (default 1).
 */
export function coalescedLoads<K, V>(
  loadMany: (keys: K[]) => Promise<Map<K, V>>,
  maxInFlight = 1,
): CoalescedLoad<K, V> {
  let waiting = new Map<K, Waiter<V>[]>();
  let inFlight = 0;

  async function loadAll(batch: Map<K, Waiter<V>[]>): Promise<void> {
    try {
      const values = await loadMany([...batch.keys()]);
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(values.get(key));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }

  function sendWaiting(): void {
    if (inFlight >= maxInFlight || waiting.size === 0) return;
    const batch = waiting;
    waiting = new Map();
    inFlight += 1;
    void loadAll(batch).finally(() => {
      inFlight -= 1;
      sendWaiting();
    });
  }

  return (key) =>
    new Promise((resolve, reject) => {
      if (waiting.size === 0 && inFlight < maxInFlight) setImmediate(sendWaiting);
      const waiters = waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
}
