/**
 * Housekeeping watches TimescaleDB's policy jobs on the real extension (a private cluster with the
 * vendored TimescaleDB preloaded): on this machine's PostgreSQL 15.20 every run the background
 * scheduler starts fails after doing its work, which would stop compression and retention silently.
 * The failure is logged once (job, last error), again only when the state changes, and the first
 * check comes a minute after start, not an hour.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { loadRetentionConfig } from '../config.js';
import { createKnex } from '../../../db/connection.js';
import { runMigrations } from '../../../db/migrate.js';
import { setupTimescale } from '../../../db/timescale.js';
import { systemClock } from '../lib/clock.js';
import { captureLogger, type CapturedLogger } from '../testing/logger.js';
import { waitFor } from '../testing/net.js';
import { createDatabase, startPrivatePostgres, type PrivatePostgres } from '../testing/private-postgres.js';
import { createHousekeepingRepo, type StorageJobRow } from './repo.js';
import { createHousekeeping, storageJobState } from './service.js';
import { createStorageReport } from './storage-report.js';

const FAILING = 'Storage job failing: compression, rollups or retention stop until it runs again';

describe('the state of a storage job', () => {
  const job = (over: Partial<StorageJobRow>): StorageJobRow => ({
    jobId: 1000,
    name: 'Columnstore Policy [1000]',
    relation: 'metrics',
    scheduleSeconds: 3600,
    lastRunStatus: 'Success',
    lastRunStartedAt: new Date('2026-11-24T11:00:00Z'),
    lastSuccessAt: new Date('2026-11-24T11:00:01Z'),
    nextStartAt: new Date('2026-11-24T12:00:00Z'),
    lastError: null,
    ...over,
  });
  const now = new Date('2026-11-24T12:30:00Z');

  it('is failing after a failed run, late without a success in twice its schedule, never before a first run, ok otherwise', () => {
    assert.equal(storageJobState(job({}), now), 'ok');
    assert.equal(storageJobState(job({ lastRunStatus: 'Failed' }), now), 'failing');
    assert.equal(storageJobState(job({ lastSuccessAt: new Date('2026-11-24T10:29:00Z') }), now), 'late');
    // never run: judged by when it should have started
    const fresh = { lastRunStatus: null, lastRunStartedAt: null, lastSuccessAt: null };
    assert.equal(storageJobState(job({ ...fresh, nextStartAt: new Date('2026-11-24T12:40:00Z') }), now), 'never');
    assert.equal(storageJobState(job({ ...fresh, nextStartAt: null }), now), 'never', 'not yet scheduled');
    assert.equal(storageJobState(job({ ...fresh, nextStartAt: new Date('2026-11-24T10:00:00Z') }), now), 'late');
  });
});

describe('storage jobs on the real TimescaleDB', { timeout: 180_000 }, () => {
  let cluster: PrivatePostgres;
  let knex: Knex;
  let logs: CapturedLogger;

  before(async () => {
    cluster = await startPrivatePostgres({ timescale: true });
    await createDatabase(cluster, 'argus');
    knex = createKnex({ url: cluster.url('argus'), poolMax: 2 });
    await runMigrations(knex);
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), captureLogger().log);
    assert.equal(outcome.ok, true, JSON.stringify(outcome));
    logs = captureLogger();
  });
  after(async () => {
    await knex?.destroy();
    await cluster?.destroy();
  });

  it('logs a job whose scheduled run failed once, a minute after start, and again only on a change', async () => {
    const repo = createHousekeepingRepo(knex);
    const jobs = await repo.storageJobs();
    assert.deepEqual(
      jobs.map((j) => j.relation).sort(),
      ['metrics', 'metrics', 'metrics_1h', 'metrics_1h', 'metrics_1h', 'metrics_5m', 'metrics_5m', 'metrics_5m'],
      'compression and retention of metrics, refresh, compression and retention of each rollup',
    );
    // the background scheduler starts each policy soon after it is added: wait until every one has
    // failed, so the state no longer changes under the checks below
    await waitFor(async () => (await repo.storageJobs()).every((j) => j.lastRunStatus === 'Failed'), 120_000, 1000);
    const failed = await repo.storageJobs();
    for (const job of failed) {
      assert.equal(job.lastSuccessAt, null, 'never succeeded: null, not -infinity');
      assert.ok(job.nextStartAt instanceof Date && job.lastRunStartedAt instanceof Date);
    }

    const housekeeping = createHousekeeping({ repo, clock: systemClock, log: logs.log, firstRunMs: 20 });
    housekeeping.start();
    try {
      await waitFor(() => logs.messages().includes(FAILING), 10_000, 20);
    } finally {
      await housekeeping.stop();
    }
    const lines = logs.lines().filter((line) => line['msg'] === FAILING);
    assert.ok(lines.length >= failed.length, `${lines.length} lines for ${failed.length} failed jobs`);
    for (const line of lines) {
      assert.equal(line['level'], 50);
      assert.equal(typeof line['job'], 'string');
      assert.match(String(line['lastError']), /\S/, 'the error TimescaleDB recorded');
    }
    // what /api/health names (no error text: health is public)
    assert.deepEqual(housekeeping.troubledStorageJobs().sort(), failed.map((j) => j.name).sort());
    const before = logs.lines().length;
    await housekeeping.runOnce();
    assert.equal(
      logs
        .lines()
        .slice(before)
        .filter((line) => line['msg'] === FAILING).length,
      0,
      'no repeat while nothing changed',
    );

    // the storage panel: each job failing, with the error TimescaleDB recorded (administrators only)
    const report = await createStorageReport({ repo, clock: systemClock }).report();
    assert.equal(report.timescale, true);
    assert.deepEqual(
      report.jobs.map((j) => j.name),
      failed.map((j) => j.name),
    );
    for (const job of report.jobs) {
      assert.equal(job.state, 'failing', job.name);
      assert.match(job.lastError ?? '', /\S/);
      assert.ok(job.nextStartAt && !Number.isNaN(Date.parse(job.nextStartAt)));
    }
  });
});
