/**
 * PostgreSQL aborts one of two transactions that lock the same rows in opposite
 * orders (deadlock_detected, 40P01), and a serializable conflict (40001) the
 * same way. Both are safe to run again: the aborted attempt left nothing behind.
 * The evaluation run and the ingest group commit both update several `systems`
 * rows in one statement, in no fixed order, so a report arriving just as its
 * system is marked offline can meet one.
 */
const TRANSIENT_CODES = new Set(['40P01', '40001']);

export function isTransientConflict(error: unknown): boolean {
  return typeof error === 'object' && error !== null && TRANSIENT_CODES.has((error as { code?: string }).code ?? '');
}

/** Runs `attempt` again (up to `tries` in all) while it fails with a transient conflict. */
export async function retryTransient<T>(attempt: () => Promise<T>, tries = 3): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= tries || !isTransientConflict(error)) throw error;
    }
  }
}
