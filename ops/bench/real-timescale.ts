/**
 * The real TimescaleDB 2.28.3 for a benchmark: a private PostgreSQL 15 cluster with the vendored
 * build preloaded (as the real-extension tests start it), migrated, the TimescaleDB step run, and
 * every policy job's schedule switched off so the background scheduler does not work under the
 * measurement (a benchmark runs a job with `CALL run_job` when it wants it).
 */
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createDatabase, startPrivatePostgres } from '../../backend/src/testing/private-postgres.js';
import { createKnex } from '../../db/connection.js';
import { loadRetentionConfig } from '../../db/environment.js';
import { runMigrations } from '../../db/migrate.js';
import { setupTimescale } from '../../db/timescale.js';

export interface RealTimescale {
  url: string;
  /** One connection without a statement timeout (compressing and refreshing take a while). */
  knex: Knex;
  jobs: { job_id: number; proc_name: string; hypertable_name: string }[];
  close(): Promise<void>;
}

export async function startRealTimescale(): Promise<RealTimescale> {
  const cluster = await startPrivatePostgres({ timescale: true });
  await createDatabase(cluster, 'argus');
  const url = cluster.url('argus');
  const knex = createKnex({ url, poolMax: 1, statementTimeoutMs: 0 });
  try {
    await runMigrations(knex);
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), pino({ level: 'silent' }));
    if (!outcome.ok) throw new Error(`TimescaleDB step failed: ${outcome.messages.join('; ')}`);
    const jobs = (
      (await knex.raw(
        "SELECT job_id, proc_name, hypertable_name FROM timescaledb_information.jobs WHERE proc_name LIKE 'policy_%'",
      )) as { rows: RealTimescale['jobs'] }
    ).rows;
    for (const job of jobs) await knex.raw('SELECT alter_job(?, scheduled => false)', [job.job_id]);
    return {
      url,
      knex,
      jobs,
      async close() {
        await knex.destroy();
        await cluster.destroy();
      },
    };
  } catch (error) {
    await knex.destroy();
    await cluster.destroy();
    throw error;
  }
}
