/**
 * Hourly in-app housekeeping (not evaluation: it needs no scheduler), first a minute after start
 * (a process restarted more often than hourly would otherwise never do it). Removes expired
 * sessions, trusted devices, e-mailed codes and reset links, and resolved alerts past the alert
 * retention (checked once an hour: docs/operations.md "Storage policies"), audit log rows past AUDIT_RETENTION, and agent events older than the raw metrics retention
 * (they are history of the same age). Then it checks TimescaleDB's policy jobs: their scheduler can
 * fail every run (seen on PostgreSQL 15.20 with 2.28.3), and then compression and retention stop
 * silently until the disk is full. A job that failed its last run or has not succeeded within twice
 * its schedule is logged once per change of state. The per-sample tables kept from before one row
 * per report (`metrics_legacy` and its rollups) are dropped once nothing in them is still kept by
 * retention. A failed step is logged and retried next hour; one step failing never skips the other.
 */
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { HousekeepingRepo, LegacyTable, StorageJobRow } from './repo.js';

export const HOUSEKEEPING_INTERVAL_MS = 3_600_000;
export const HOUSEKEEPING_FIRST_RUN_MS = 60_000;

export type StorageJobState = 'ok' | 'failing' | 'late' | 'never';

/** States that stop compression, rollups or retention (logged, named by /api/health). */
export const troubledJobState = (state: StorageJobState) => state === 'failing' || state === 'late';

/**
 * failing: its last run failed; late: no success (nor, never run, a start) within twice its schedule;
 * never: it has not run yet and is not overdue (not "ok": nothing says it works).
 */
export function storageJobState(job: StorageJobRow, now: Date): StorageJobState {
  if (job.lastRunStatus === 'Failed') return 'failing';
  const allowanceMs = 2 * job.scheduleSeconds * 1000;
  const reference = job.lastSuccessAt ?? job.nextStartAt;
  if (reference && now.getTime() - new Date(reference).getTime() > allowanceMs) return 'late';
  return job.lastRunStatus === null && job.lastSuccessAt === null ? 'never' : 'ok';
}

/** METRICS_RAW_RETENTION, METRICS_5M_RETENTION and METRICS_1H_RETENTION in ms. */
export interface SampleRetention {
  rawMs: number;
  rollup5mMs: number;
  rollup1hMs: number;
}

/**
 * Whether every legacy relation is empty or holds only rows past its retention, so no chart reads
 * them any more. Without TimescaleDB `metrics_legacy` has no rollups beside it and the charts read
 * it at every range, so it counts as past only after the longest retention.
 */
export function legacyPastRetention(
  tables: LegacyTable[],
  timescale: boolean,
  retention: SampleRetention,
  now: Date,
): boolean {
  const keptFor: Record<LegacyTable['relation'], number> = {
    metrics_legacy: timescale ? retention.rawMs : Math.max(retention.rawMs, retention.rollup5mMs, retention.rollup1hMs),
    metrics_5m_legacy: retention.rollup5mMs,
    metrics_1h_legacy: retention.rollup1hMs,
  };
  return tables.every(
    ({ relation, newest }) => newest === null || now.getTime() - new Date(newest).getTime() > keptFor[relation],
  );
}

/** The alert retention's own service (settings/alert-retention/service.ts) deletes what it no longer keeps. */
export interface AlertRetentionPurge {
  purge(): Promise<number>;
}

/** The monthly report e-mail (reports/monthly.ts): sends what is due, once per customer and month. */
export interface MonthlyReportSender {
  sendDue(): Promise<number>;
}

/** The audit log's own service deletes rows past AUDIT_RETENTION. */
export interface AuditRetentionPurge {
  purge(): Promise<number>;
}

export function createHousekeeping({
  repo,
  clock,
  log,
  alertRetention,
  auditRetention,
  monthlyReports,
  agentEventRetentionMs,
  sampleRetention,
  firstRunMs,
}: {
  repo: HousekeepingRepo;
  clock: Clock;
  log: Logger;
  alertRetention?: AlertRetentionPurge;
  auditRetention?: AuditRetentionPurge;
  monthlyReports?: MonthlyReportSender;
  /** Agent events are kept as long as raw samples (METRICS_RAW_RETENTION); absent: kept. */
  agentEventRetentionMs?: number;
  /** When the legacy per-sample tables are past retention (absent: they are left alone). */
  sampleRetention?: SampleRetention;
  /** Tests: the first run sooner than HOUSEKEEPING_FIRST_RUN_MS. */
  firstRunMs?: number;
}) {
  let timer: NodeJS.Timeout | null = null;
  let first: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const jobStates = new Map<number, StorageJobState>();
  const jobNames = new Map<number, string>();

  async function checkStorageJobs(): Promise<void> {
    const now = clock.now();
    for (const job of await repo.storageJobs()) {
      const state = storageJobState(job, now);
      const before = jobStates.get(job.jobId) ?? 'ok';
      jobStates.set(job.jobId, state);
      jobNames.set(job.jobId, job.name);
      if (troubledJobState(state) === troubledJobState(before)) continue;
      const about = { jobId: job.jobId, job: job.name, relation: job.relation, lastSuccessAt: job.lastSuccessAt };
      if (state === 'ok') log.info(about, 'Storage job succeeds again');
      else
        log.error(
          { ...about, state, lastError: job.lastError, nextStartAt: job.nextStartAt },
          state === 'failing'
            ? 'Storage job failing: compression, rollups or retention stop until it runs again'
            : 'Storage job late: it has not succeeded within twice its schedule',
        );
    }
  }

  async function dropLegacyPastRetention(retention: SampleRetention): Promise<void> {
    const { timescale, tables } = await repo.legacyTables();
    if (tables.length === 0 || !legacyPastRetention(tables, timescale, retention, clock.now())) return;
    await repo.dropLegacyTables();
    log.info(
      { tables: tables.map((t) => t.relation) },
      'Dropped the per-sample tables from before one row per report: nothing in them is kept any more',
    );
  }

  async function runOnce(): Promise<void> {
    try {
      const deleted = await repo.deleteExpiredSignInRows(clock.now());
      if (Object.values(deleted).some((n) => n > 0)) log.info(deleted, 'Removed expired sign-in rows');
    } catch (error) {
      log.warn({ err: { message: (error as Error).message } }, 'Housekeeping failed; retrying next hour');
    }
    if (agentEventRetentionMs !== undefined) {
      try {
        const events = await repo.deleteAgentEventsBefore(new Date(clock.now().getTime() - agentEventRetentionMs));
        if (events > 0) log.info({ events }, 'Removed agent events past the raw retention');
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'Agent event retention failed; retrying next hour');
      }
    }
    if (alertRetention) {
      try {
        const alerts = await alertRetention.purge();
        if (alerts > 0) log.info({ alerts }, 'Removed resolved alerts past the alert retention');
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'Alert retention failed; retrying next hour');
      }
    }
    if (auditRetention) {
      try {
        const rows = await auditRetention.purge();
        if (rows > 0) log.info({ rows }, 'Removed audit log rows past AUDIT_RETENTION');
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'Audit retention failed; retrying next hour');
      }
    }
    if (monthlyReports) {
      try {
        const sent = await monthlyReports.sendDue();
        if (sent > 0) log.info({ sent }, 'Sent monthly reports');
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'Monthly reports failed; retrying next hour');
      }
    }
    if (sampleRetention) {
      try {
        await dropLegacyPastRetention(sampleRetention);
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'Legacy table cleanup failed; retrying next hour');
      }
    }
    try {
      await checkStorageJobs();
    } catch (error) {
      log.warn({ err: { message: (error as Error).message } }, 'Storage job check failed; retrying next hour');
    }
  }

  function runInTurn(): void {
    running ??= runOnce().finally(() => (running = null));
  }

  return {
    runOnce,
    /** Names of the storage jobs failing or late at the last check (for /api/health). */
    troubledStorageJobs(): string[] {
      return [...jobStates]
        .filter(([, state]) => troubledJobState(state))
        .map(([id]) => jobNames.get(id) ?? String(id));
    },
    start(): void {
      first ??= setTimeout(runInTurn, firstRunMs ?? HOUSEKEEPING_FIRST_RUN_MS);
      first.unref();
      timer ??= setInterval(runInTurn, HOUSEKEEPING_INTERVAL_MS);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (first) clearTimeout(first);
      if (timer) clearInterval(timer);
      first = null;
      timer = null;
      await running;
    },
  };
}

export type Housekeeping = ReturnType<typeof createHousekeeping>;
