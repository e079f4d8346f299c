/** What the real-extension tests share: a private cluster, charts through the service, policy jobs. */
import type { Knex } from 'knex';
import { createKnex } from '../../../db/connection.js';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditService } from '../audit/service.js';
import { createMemoryBus } from '../bus/memory-bus.js';
import type { Principal } from '../lib/access.js';
import { FakeClock } from '../lib/clock.js';
import { createSystemsRepo } from '../systems/repo.js';
import { createScriptChecksReader } from '../systems/script-checks-repo.js';
import { createSystemsService } from '../systems/service.js';
import { createDatabase, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

export async function rowsOf<T>(knex: Knex, sql: string, bindings: Knex.RawBinding[] = []): Promise<T[]> {
  return ((await knex.raw(sql, bindings)) as { rows: T[] }).rows;
}

/** The policy jobs' ids, of one relation or of all. */
export async function jobIds(knex: Knex, relation?: string): Promise<number[]> {
  const jobs = await rowsOf<{ job_id: number }>(
    knex,
    `SELECT job_id FROM timescaledb_information.jobs
      WHERE proc_name LIKE 'policy_%' AND (?::text IS NULL OR hypertable_name = ?) ORDER BY job_id`,
    [relation ?? null, relation ?? null],
  );
  return jobs.map((job) => job.job_id);
}

export interface Chart {
  source: string;
  points: number[][];
}

/** A system's chart of one series over the `rangeMs` before `now`, as the API answers it. */
export async function chartsOf(
  knex: Knex,
  systemId: number,
  now: Date,
): Promise<(name: string, instance: string, rangeMs: number) => Promise<Chart>> {
  const admin = { userId: 1, role: 'ADMIN', customerIds: new Set() } as unknown as Principal;
  const clock = new FakeClock(now);
  const service = createSystemsService({
    repo: createSystemsRepo(knex),
    scriptChecks: createScriptChecksReader(knex),
    bus: createMemoryBus(),
    clock,
    audit: createAuditService({ repo: createAuditRepo(knex), clock }),
  });
  return async (name, instance, rangeMs) =>
    (await service.metrics(admin, {
      systemId,
      name,
      instance,
      from: new Date(now.getTime() - rangeMs),
      to: now,
    })) satisfies Chart;
}

/** Runs the refresh policy of a rollup now, as the scheduler would. */
export async function refreshNow(knex: Knex, view: string): Promise<void> {
  const [job] = await rowsOf<{ job_id: number }>(
    knex,
    `SELECT job_id FROM timescaledb_information.jobs
      WHERE proc_name = 'policy_refresh_continuous_aggregate' AND hypertable_name = ?`,
    [view],
  );
  if (!job) throw new Error(`no refresh policy on ${view}`);
  await knex.raw('CALL run_job(?)', [job.job_id]);
}

export interface RealTimescale {
  cluster: PrivatePostgres;
  knex: Knex;
}

/** A private cluster with the real extension and an empty `argus` database, for the real-tier tests. */
export async function startRealTimescale(): Promise<RealTimescale> {
  const cluster = await startPrivatePostgres({ timescale: true });
  await createDatabase(cluster, 'argus');
  return { cluster, knex: createKnex({ url: cluster.url('argus'), poolMax: 2 }) };
}

export async function stopRealTimescale(real: RealTimescale | undefined): Promise<void> {
  await real?.knex.destroy();
  await real?.cluster.destroy();
}

/** Takes the given jobs off the background scheduler: from then on they run only when a test calls them. */
export async function unscheduleJobs(knex: Knex, ids: number[]): Promise<void> {
  for (const id of ids) await knex.raw('SELECT alter_job(?, scheduled => false)', [id]);
}
