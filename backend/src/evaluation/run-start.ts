/** What every run starts with: the lock, the previous run's time (pending conditions start over after a long gap). */
import type { Knex } from 'knex';
import type { RunRepo } from './repo.js';
import type { OpenAlert } from './types.js';

/** How long a run waits for another process's run to finish (ms), unless told. */
export const DEFAULT_LOCK_TIMEOUT_MS = 30_000;
/** Like Prometheus' for-outage-tolerance: after a longer gap between runs, pending conditions start over. */
const OUTAGE_TOLERANCE_MS = 60 * 60_000;

/** The open alerts by their rule's kind. */
export function splitByKind(open: readonly OpenAlert[]) {
  return {
    metric: open.filter((a) => a.ruleKind === 'metric'),
    offline: open.filter((a) => a.ruleKind === 'offline'),
    event: open.filter((a) => a.ruleKind === 'event'),
    forecast: open.filter((a) => a.ruleKind === 'forecast'),
  };
}

/** The run's own bookkeeping (once per run, also when it goes on customer by customer): when the previous one was. */
export async function startRun(
  repo: RunRepo,
  trx: Knex.Transaction,
  now: Date,
  lockTimeoutMs: number,
): Promise<Date | null> {
  await repo.lockRun(lockTimeoutMs, trx);
  const previousRun = await repo.lastRunAt(trx);
  if (previousRun && now.getTime() - previousRun.getTime() > OUTAGE_TOLERANCE_MS) await repo.restartPending(now, trx);
  await repo.saveLastRunAt(now, trx);
  return previousRun;
}
