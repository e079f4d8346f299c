/**
 * A local lease in front of a shared rate limit, for a limit taken on every request of a hot path
 * (an agent's reports per system and minute): a request that goes to the store takes its own points
 * plus a lease of `lease` more, and the next requests of that key take from the lease in this
 * process, until it is spent or the store's window ends. The store counts leased points as consumed,
 * so across any number of processes no more than the limit is ever accepted in a window.
 *
 * Near the limit the lease gives way: when the store refuses the points with the lease, the lease is
 * given back and the request alone decides, so one process accepts exactly the limit, as without a
 * lease. With several processes sharing a key, a key may be refused up to (processes − 1) × lease
 * points early while the others hold unspent leases (docs/decisions.md).
 */
import type { RateLimiter, RateLimitResult } from './rate-limiter.js';

interface Lease {
  points: number;
  /** performance.now() at which the store's window ends (and the lease with it). */
  until: number;
}

/** Beyond this many keys, expired leases are swept before a new one is kept. */
const SWEEP_AT = 20_000;

export function withLocalLease(limiter: RateLimiter, lease: number, now = () => performance.now()): RateLimiter {
  if (lease < 1) return limiter;
  const leases = new Map<string, Lease>();

  function sweep(at: number): void {
    for (const [key, held] of leases) if (held.until <= at) leases.delete(key);
  }

  async function consume(key: string, points = 1): Promise<RateLimitResult> {
    const at = now();
    const held = leases.get(key);
    const local = held && held.until > at ? held.points : 0;
    if (held && local >= points) {
      held.points -= points;
      return { allowed: true, consumed: 0, remaining: held.points, retryAfterSeconds: 0, resetsInMs: held.until - at };
    }
    leases.delete(key);
    // what the lease still held is counted in the store already
    const needed = points - local;
    const withLease = await limiter.consume(key, needed + lease);
    if (withLease.allowed) {
      // a store that failed open counted nothing: nothing to lease
      if (withLease.consumed > 0 && withLease.resetsInMs > 0) {
        if (leases.size >= SWEEP_AT) sweep(at);
        leases.set(key, { points: lease, until: at + withLease.resetsInMs });
      }
      return withLease;
    }
    // refused with the lease: give it back; the request alone decides
    await limiter.refund(key, lease);
    const consumed = withLease.consumed - lease;
    if (consumed <= limiter.points)
      return { allowed: true, consumed, remaining: limiter.points - consumed, retryAfterSeconds: 0, resetsInMs: 0 };
    return { ...withLease, consumed };
  }

  return {
    points: limiter.points,
    consume,
    async reset(key) {
      leases.delete(key);
      await limiter.reset(key);
    },
    async refund(key, points = 1) {
      await limiter.refund(key, points);
    },
    peek: (key) => limiter.peek(key),
  };
}
