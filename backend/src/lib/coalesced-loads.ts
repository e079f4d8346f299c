/**
 * Loads by key that share their queries: one query is in flight at a time, and the keys asked for
 * meanwhile go out together when it returns (with none in flight, at the end of the event loop's
 * turn). Requests spread over time, as agents send them, so share a round trip as well as those of
 * one turn, and a burst of a thousand asks costs a few queries, not a thousand. A load still starts
 * after it was asked for: nothing is cached here.
 */
export type CoalescedLoad<K, V> = (key: K) => Promise<V | undefined>;

interface Waiter<V> {
  resolve(value: V | undefined): void;
  reject(error: unknown): void;
}

/** `loadMany` answers the values of the keys it found; a key it leaves out is answered undefined. */
export function coalescedLoads<K, V>(loadMany: (keys: K[]) => Promise<Map<K, V>>): CoalescedLoad<K, V> {
  let waiting = new Map<K, Waiter<V>[]>();
  let loading = false;

  async function loadAll(batch: Map<K, Waiter<V>[]>): Promise<void> {
    try {
      const values = await loadMany([...batch.keys()]);
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(values.get(key));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }

  function sendWaiting(): void {
    if (loading || waiting.size === 0) return;
    const batch = waiting;
    waiting = new Map();
    loading = true;
    void loadAll(batch).finally(() => {
      loading = false;
      sendWaiting();
    });
  }

  return (key) =>
    new Promise((resolve, reject) => {
      if (waiting.size === 0 && !loading) setImmediate(sendWaiting);
      const waiters = waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
}
