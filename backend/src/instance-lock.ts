/**
 * Exactly one app instance per database (spec "Deployment units"): a
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

/** Returns null when another instance holds the lock. */
export async function acquireInstanceLock(url: string, log: Logger): Promise<InstanceLock | null> {
  const client = new pg.Client({ connectionString: url, application_name: 'argus-instance-lock' });
  await client.connect();
  const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
    INSTANCE_LOCK_KEY,
  ]);
  if (!result.rows[0]?.locked) {
    await client.end();
    return null;
  }
  // Losing this connection (database restart) loses the lock: say so loudly.
  client.on('error', (error) => log.error({ err: { message: error.message } }, 'Instance lock connection lost'));
  return {
    async release() {
      await client.query('SELECT pg_advisory_unlock($1)', [INSTANCE_LOCK_KEY]).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
