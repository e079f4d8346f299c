/**
 * What an administrator sees of storage (the console's storage panel): the database's size, how
 * much the samples take and how well they compress, and each TimescaleDB policy job with its last
 * success, next run, last error and state. The state is the one housekeeping logs and /api/health
 * names (storageJobState); the error text is for administrators only.
 */
import type { Clock } from '../lib/clock.js';
import type { DatabaseUsage, HousekeepingRepo } from './repo.js';
import { storageJobState, type StorageJobState } from './service.js';

export interface StorageJobView {
  id: number;
  name: string;
  relation: string | null;
  scheduleSeconds: number;
  state: StorageJobState;
  lastRunStatus: string | null;
  lastSuccessAt: string | null;
  nextStartAt: string | null;
  lastError: string | null;
}

export interface StorageReport extends DatabaseUsage {
  jobs: StorageJobView[];
}

const iso = (at: Date | null) => (at ? new Date(at).toISOString() : null);

export function createStorageReport({ repo, clock }: { repo: HousekeepingRepo; clock: Clock }) {
  return {
    async report(): Promise<StorageReport> {
      const [usage, jobs] = await Promise.all([repo.databaseUsage(), repo.storageJobs()]);
      const now = clock.now();
      return {
        ...usage,
        jobs: jobs.map((job) => ({
          id: job.jobId,
          name: job.name,
          relation: job.relation,
          scheduleSeconds: job.scheduleSeconds,
          state: storageJobState(job, now),
          lastRunStatus: job.lastRunStatus,
          lastSuccessAt: iso(job.lastSuccessAt),
          nextStartAt: iso(job.nextStartAt),
          lastError: job.lastError,
        })),
      };
    },
  };
}

export type StorageReporter = ReturnType<typeof createStorageReport>;
