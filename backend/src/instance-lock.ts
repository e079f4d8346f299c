/**
 * Exactly one app instance per database (docs/operations.md "Deployment units"): a
 * session-level advisory lock held on a dedicated connection for the app's
 * lifetime. A second instance fails to take it and exits 1.
 */
import pg from 'pg';
import type { Logger } from './lib/logger.js';

const INSTANCE_LOCK_KEY = 7_411_000;
export const ANOTHER_INSTANCE_MESSAGE = 'Another Argus instance is running';

export interface InstanceLock {
  release(): Promise<void>;
}

const RELOCK_INTERVAL_MS = 5_000;

async function tryLock(url: string): Promise<pg.Client | null> {
  const client = new pg.Client({ connectionString: url, application_name: 'argus-instance-lock' });
  await client.connect();
  const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
    INSTANCE_LOCK_KEY,
  ]);
  if (result.rows[0]?.locked) return client;
  await client.end();
  return null;
}

/**
 * Returns null when another instance holds the lock. A database restart ends the lock's connection
 * and so the lock: the app keeps serving (503 while the database is away) and takes the lock again
 * every few seconds until it has it, saying so in the log.
 */
export async function acquireInstanceLock(url: string, log: Logger): Promise<InstanceLock | null> {
  let client = await tryLock(url);
  if (!client) return null;
  let released = false;
  let retry: NodeJS.Timeout | null = null;

  function watch(held: pg.Client): void {
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost || released) return;
      lost = true;
      log.error({ err: { message: error?.message ?? 'connection ended' } }, 'Instance lock connection lost');
      held.end().catch(() => undefined);
      retry = setTimeout(relock, RELOCK_INTERVAL_MS);
    };
    held.on('error', onLost);
    held.on('end', () => onLost());
  }

  async function relock(): Promise<void> {
    retry = null;
    if (released) return;
    try {
      const again = await tryLock(url);
      if (released) {
        await again?.end();
        return;
      }
      if (again) {
        client = again;
        watch(again);
        log.info('Instance lock taken again');
        return;
      }
      log.error(ANOTHER_INSTANCE_MESSAGE + ' (it took the lock while the database was away)');
    } catch {
      // the database is still away: try again later
    }
    retry = setTimeout(relock, RELOCK_INTERVAL_MS);
  }

  watch(client);
  return {
    async release() {
      released = true;
      if (retry) clearTimeout(retry);
      const held = client;
      if (!held) return;
      await held.query('SELECT pg_advisory_unlock($1)', [INSTANCE_LOCK_KEY]).catch(() => undefined);
      await held.end().catch(() => undefined);
    },
  };
}
