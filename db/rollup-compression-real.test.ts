/**
 * metrics_5m compressed at two days, inside its refresh window, on the real extension: a late report
 * (an agent's buffer after an outage) into a compressed day still reaches the rollup, equal to the
 * per-sample computation, and the day is compressed again; an installation whose policy the step
 * set past the refresh window moves to the sooner one, while an operator's own value is kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { pino } from 'pino';
import {
  insertSystem,
  refreshNow,
  rowsOf,
  startSetUpRealTimescale,
  stopRealTimescale,
  type RealTimescale,
} from '../backend/src/testing/report-rows.js';
import { loadRetentionConfig } from './environment.js';
import { setupTimescale } from './timescale.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('metrics_5m compressed inside its refresh window on the real extension', { timeout: 300_000 }, () => {
  let real: RealTimescale | undefined;
  let knex: Knex;
  let systemId: number;
  const now = new Date(Math.floor(Date.now() / HOUR) * HOUR);
  const rows = <T>(sql: string, bindings: Knex.RawBinding[] = []) => rowsOf<T>(knex, sql, bindings);
  const compressAfter = async () =>
    (
      await rows<{ compress_after: string }>(
        `SELECT config->>'compress_after' AS compress_after FROM timescaledb_information.jobs
          WHERE proc_name = 'policy_compression' AND hypertable_name = 'metrics_5m'`,
      )
    ).map((j) => j.compress_after);
  const compressNow = async () => {
    const [job] = await rows<{ job_id: number }>(
      `SELECT job_id FROM timescaledb_information.jobs
        WHERE proc_name = 'policy_compression' AND hypertable_name = 'metrics_5m'`,
    );
    await knex.raw('CALL run_job(?)', [job?.job_id ?? 0]);
  };
  const compressedDays = () =>
    rows<{ range_start: Date; range_end: Date; is_compressed: boolean }>(
      `SELECT c.range_start, c.range_end, c.is_compressed FROM timescaledb_information.chunks c
         JOIN timescaledb_information.continuous_aggregates a ON a.materialization_hypertable_name = c.hypertable_name
        WHERE a.view_name = 'metrics_5m' ORDER BY 1`,
    );

  before(async () => {
    real = await startSetUpRealTimescale();
    knex = real.knex;
    systemId = await insertSystem(knex, 'Late', 'late-01');
  });
  after(() => stopRealTimescale(real));

  it('takes a late report into a compressed day, equal to the per-sample computation', async () => {
    assert.deepEqual(await compressAfter(), ['2 days']);
    await knex.raw(
      `INSERT INTO metric_samples (time, system_id, name, instance, value)
       SELECT t, ?, 'load.1', '', round((extract(epoch FROM t) / 60 % 17)::numeric, 1)
         FROM generate_series(?::timestamptz, ?::timestamptz, INTERVAL '1 minute') t`,
      [systemId, new Date(now.getTime() - 5 * DAY), new Date(now.getTime() - HOUR)],
    );
    await refreshNow(knex, 'metrics_5m');
    // the policy's clock, not `now` (the hour's start): in the hour after midnight UTC a day ends in between
    const cutoff = Date.now() - 2 * DAY;
    await compressNow();
    const days = await compressedDays();
    assert.ok(
      days.every((d) => d.is_compressed === d.range_end.getTime() <= cutoff),
      JSON.stringify(days),
    );

    // four days back, in a compressed day: a sample late, into a bucket that has others
    const late = new Date(now.getTime() - 4 * DAY + 2 * 60_000 + 30_000);
    await knex('metric_samples').insert({ time: late, system_id: systemId, name: 'load.1', instance: '', value: 99.5 });
    await refreshNow(knex, 'metrics_5m');
    const bucketOf = (source: string) =>
      rows<{ avg: number; min: number; max: number; count: number }>(
        source === 'rollup'
          ? `SELECT r.avgs[1]::text::float8 AS avg, r.mins[1]::text::float8 AS min, r.maxs[1]::text::float8 AS max,
                    r.count::int AS count
               FROM metrics_5m r WHERE r.system_id = ? AND r.bucket = time_bucket('5 minutes', ?::timestamptz)`
          : `SELECT avg(value)::real::text::float8 AS avg, min(value) AS min, max(value) AS max, count(*)::int AS count
               FROM metric_samples WHERE system_id = ? AND time >= time_bucket('5 minutes', ?::timestamptz)
                AND time < time_bucket('5 minutes', ?::timestamptz) + INTERVAL '5 minutes'`,
        source === 'rollup' ? [systemId, late] : [systemId, late, late],
      );
    const [rollup] = await bucketOf('rollup');
    assert.equal(rollup?.max, 99.5, 'the late sample reached the rollup');
    assert.deepEqual(rollup, (await bucketOf('samples'))[0]);

    await compressNow();
    assert.ok((await compressedDays()).some((d) => d.is_compressed));
    assert.deepEqual((await bucketOf('rollup'))[0], rollup, 'compressed again, it reads the same');
  });

  it("moves the step's own past-window policy to two days, and keeps an operator's", async () => {
    const replaceWith = async (value: string) => {
      await knex.raw("SELECT remove_compression_policy('metrics_5m')");
      await knex.raw("SELECT add_compression_policy('metrics_5m', compress_after => ?::interval)", [value]);
    };
    const step = async () => {
      const logged: string[] = [];
      const log = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });
      const outcome = await setupTimescale(knex, loadRetentionConfig({}), log);
      assert.equal(outcome.ok, true, outcome.messages.join('\n'));
      return logged.join('');
    };
    await replaceWith('7 days 23:55:00');
    assert.match(await step(), /metrics_5m is compressed after 2 days from now on \(was 7 days 23:55:00/);
    assert.deepEqual(await compressAfter(), ['2 days']);
    assert.doesNotMatch(await step(), /metrics_5m is compressed after/, 'once');

    await replaceWith('9 days');
    assert.match(await step(), /The existing compression policy of metrics_5m is kept: compress_after 9 days/);
    assert.deepEqual(await compressAfter(), ['9 days']);
  });
});
