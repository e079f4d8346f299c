/**
 * At most a few password verifications of one account at a time (docs/decisions.md "Sign-in
 * throughput"). The growing delay after a failure slows each request, but requests sent in
 * parallel each wait their own delay at the same time: without a bound, a hundred guesses at once
 * cost the guesser one delay. A slot is held through the verification and the failure's delay, so
 * an account's guesses pass at most `limit` per delay, whatever the number of connections or
 * addresses. In memory: exactly one app instance runs (the instance lock), and a restart frees every slot.
 */
export interface VerificationSlots {
  /** The function that frees the slot taken, or null when `limit` verifications of `identity` run. */
  enter(identity: string): (() => void) | null;
}

export function createVerificationSlots(limit: number): VerificationSlots {
  const running = new Map<string, number>();
  return {
    enter(identity) {
      const now = running.get(identity) ?? 0;
      if (now >= limit) return null;
      running.set(identity, now + 1);
      let freed = false;
      return () => {
        if (freed) return;
        freed = true;
        const left = (running.get(identity) ?? 1) - 1;
        if (left > 0) running.set(identity, left);
        else running.delete(identity);
      };
    },
  };
}
