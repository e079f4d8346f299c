/**
 * The per-sample tables kept from before one row per report, on the real extension: an upgraded
 * installation keeps `metrics_legacy` (a compressed hypertable) and its continuous aggregates
 * `metrics_5m_legacy`, `metrics_1h_legacy` until each holds only rows past its own retention; then
 * the hourly housekeeping drops all three with their policy jobs, and the charts read the new rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { loadRetentionConfig } from '../../../db/environment.js';
import { runMigrations } from '../../../db/migrate.js';
import { setupTimescale } from '../../../db/timescale.js';
import { createGroupCommitWriter } from '../ingest/group-commit.js';
import { createIngestRepo } from '../ingest/repo.js';
import { packed } from '../ingest/series-sets.js';
import { FakeClock } from '../lib/clock.js';
import { captureLogger } from '../testing/logger.js';
import {
  chartsOf,
  HOUR,
  rowsOf,
  settlePerSampleRows,
  startPerSampleRelease,
  stopPerSampleRelease,
  type PerSampleRelease,
} from '../testing/report-rows.js';
import { createHousekeepingRepo } from './repo.js';
import { createHousekeeping, type SampleRetention } from './service.js';

const SILENT = pino({ level: 'silent' });
const DAY = 24 * HOUR;
const RETENTION: SampleRetention = { rawMs: 7 * DAY, rollup5mMs: 30 * DAY, rollup1hMs: 400 * DAY };
const LEGACY = ['metrics_1h_legacy', 'metrics_5m_legacy', 'metrics_legacy']; // sorted, as listed

describe('housekeeping drops the legacy per-sample tables on the real extension', { timeout: 300_000 }, () => {
  let release: PerSampleRelease | undefined;
  let knex: Knex;
  let systemId: number;
  const now = new Date(Math.floor(Date.now() / HOUR) * HOUR);
  const rows = <T>(sql: string, bindings: Knex.RawBinding[] = []) => rowsOf<T>(knex, sql, bindings);
  const legacyRelations = async () =>
    (
      await rows<{ relname: string }>(
        "SELECT relname FROM pg_class WHERE relname = ANY(?::text[]) AND relkind IN ('r', 'v', 'm') ORDER BY 1",
        [LEGACY],
      )
    ).map((r) => r.relname);

  async function housekeepingAt(at: Date) {
    const logs = captureLogger();
    await createHousekeeping({
      repo: createHousekeepingRepo(knex),
      clock: new FakeClock(at),
      log: logs.log,
      sampleRetention: RETENTION,
    }).runOnce();
    return logs;
  }

  before(async () => {
    release = await startPerSampleRelease();
    ({ knex, systemId } = release);
    // five days of a sample every 5 minutes, rolled up, the older raw chunks compressed
    await knex.raw(
      `INSERT INTO metrics (time, system_id, name, instance, value)
       SELECT t, ?, 'mem.used_pct', '', round((extract(epoch FROM t) / 300 % 97)::numeric, 1)
         FROM generate_series(?::timestamptz, ?::timestamptz, INTERVAL '5 minutes') t`,
      [systemId, new Date(now.getTime() - 5 * DAY), new Date(now.getTime() - 5 * 60_000)],
    );
    await settlePerSampleRows(knex, now);

    await runMigrations(knex);
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), SILENT);
    assert.equal(outcome.ok, true, outcome.messages.join('\n'));
  });
  after(() => stopPerSampleRelease(release));

  it('keeps them while any holds kept rows, then drops all three with their jobs', async () => {
    assert.deepEqual(await legacyRelations(), LEGACY, 'the upgrade kept the per-sample rows');
    const legacyJobs = async () =>
      rows<{ job_id: number }>(
        `SELECT job_id FROM timescaledb_information.jobs WHERE hypertable_name = 'metrics_legacy'
            OR hypertable_name IN (SELECT materialization_hypertable_name FROM timescaledb_information.continuous_aggregates
                                    WHERE view_name IN ('metrics_5m_legacy', 'metrics_1h_legacy'))
            OR hypertable_name IN ('metrics_5m_legacy', 'metrics_1h_legacy')`,
      );
    assert.ok((await legacyJobs()).length > 0, 'their policies came along');

    await housekeepingAt(now);
    assert.deepEqual(await legacyRelations(), LEGACY, 'everything still kept');
    await housekeepingAt(new Date(now.getTime() + 8 * DAY));
    assert.deepEqual(await legacyRelations(), LEGACY, 'raw past its retention, the rollups not');
    await housekeepingAt(new Date(now.getTime() + 31 * DAY));
    assert.deepEqual(await legacyRelations(), LEGACY, 'the hourly rollup still kept');

    const logs = await housekeepingAt(new Date(now.getTime() + 401 * DAY));
    assert.ok(
      logs.messages().some((m) => m.startsWith('Dropped the per-sample tables')),
      logs.messages().join('\n'),
    );
    assert.deepEqual(await legacyRelations(), []);
    assert.deepEqual(await rows("SELECT relname FROM pg_class WHERE relname LIKE '%legacy%'"), []);
    assert.deepEqual(
      await rows("SELECT view_name FROM timescaledb_information.continuous_aggregates WHERE view_name LIKE '%legacy'"),
      [],
    );
    assert.deepEqual(await legacyJobs(), [], 'their policy jobs went with them');
    // the extension's own catalogue: nothing of theirs left behind (materialisations, compressed tables)
    assert.deepEqual(
      await rows(
        `SELECT table_name FROM _timescaledb_catalog.hypertable
          WHERE to_regclass(format('%I.%I', schema_name, table_name)) IS NULL`,
      ),
      [],
    );
    assert.deepEqual(
      (
        await rows<{ user_view_name: string }>(
          'SELECT user_view_name FROM _timescaledb_catalog.continuous_agg ORDER BY 1',
        )
      ).map((c) => c.user_view_name),
      ['metrics_1h', 'metrics_5m'],
    );
    await housekeepingAt(new Date(now.getTime() + 402 * DAY)); // nothing left: nothing to do, no error

    // the new rows go on: a report after the drop is charted at every source
    const writer = createGroupCommitWriter({ repo: createIngestRepo(knex), log: SILENT, windowMs: 1 });
    await writer.write({
      systemId,
      reports: [
        { ms: now.getTime() - 60_000, ...packed([{ name: 'mem.used_pct', instance: '', value: 77 }]), events: [] },
      ],
      touch: { seenAt: now, version: null, hostname: null, os: null, kernel: null, arch: null, cores: null },
    });
    await writer.close();
    const charts = await chartsOf(knex, systemId, now);
    for (const range of [HOUR, 7 * DAY, 30 * DAY, 400 * DAY]) {
      const chart = await charts('mem.used_pct', '', range);
      assert.deepEqual(
        chart.points.map((p) => p[1]),
        [77],
        `${range / HOUR} h (${chart.source}): the new rows only`,
      );
    }
    const again = await setupTimescale(knex, loadRetentionConfig({}), SILENT);
    assert.equal(again.ok, true, again.messages.join('\n'));
  });
});
