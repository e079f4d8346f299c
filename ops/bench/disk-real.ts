/**
 * `npm run bench -- disk --real`: disk at steady state, on the real TimescaleDB 2.28.3. Simulates
 * `--days` (default 7) of agent-simulator reports every 30 s for `--systems` hosts (default 4), one
 * row per report, runs the compression policy and refreshes both rollups with `CALL run_job`,
 * measures what a sample costs uncompressed (with the dedupe index) and compressed and what a
 * rollup costs per series and bucket, and works out the steady state for 1,000 such systems under
 * the default retention (raw 7 d, compress after 2 d, metrics_5m 30 d, metrics_1h 400 d), and with
 * the lever: compress after 6 h.
 *
 *   node --import tsx ops/bench/run.ts disk --real [--systems 4] [--days 7] [--containers 50]
 *
 * `--containers N`: each host also reports N running containers (13 series each).
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { startRealTimescale } from './real-timescale.js';
import { loadSimulatedSamples } from './simulated-load.js';

const GB = 1e9;

export async function benchDiskReal(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      real: { type: 'boolean', default: true },
      systems: { type: 'string', default: '4' },
      days: { type: 'string', default: '7' },
      containers: { type: 'string', default: '0' },
    },
  });
  const systems = Number(values.systems);
  const days = Number(values.days);
  const { knex, jobs, close } = await startRealTimescale();
  const one = async <T>(sql: string, bindings: Knex.RawBinding[] = []) =>
    ((await knex.raw(sql, bindings)) as { rows: T[] }).rows[0] as T;
  try {
    const started = performance.now();
    const containers = Number(values.containers);
    const { rows, seriesPerHost: series } = await loadSimulatedSamples(knex, { systems, hours: days * 24, containers });
    for (const job of jobs.filter((j) => j.proc_name !== 'policy_retention'))
      await knex.raw('CALL run_job(?)', [job.job_id]);
    await knex.raw('VACUUM ANALYZE');
    console.log(
      `disk (real TimescaleDB 2.28.3): ${systems} simulated hosts × ${days} days every 30 s = ${rows} samples, ` +
        `${series} series per host (loaded, compressed and rolled up in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );

    // each chunk: its samples, and (uncompressed) its table and each index, or (compressed) its compressed size
    const chunks = (
      (await knex.raw(
        `SELECT format('%I.%I', chunk_schema, chunk_name) AS chunk, chunk_name, range_start, range_end, is_compressed
           FROM timescaledb_information.chunks WHERE hypertable_name = 'metrics'`,
      )) as {
        rows: { chunk: string; chunk_name: string; range_start: Date; range_end: Date; is_compressed: boolean }[];
      }
    ).rows;
    const raw = { samples: 0, heap: 0, dedupe: 0, timeidx: 0 };
    const compressed = { samples: 0, bytes: 0 };
    for (const chunk of chunks) {
      const { n } = await one<{ n: string }>(
        'SELECT sum(cardinality(vals)) AS n FROM metrics WHERE time >= ? AND time < ?',
        [chunk.range_start, chunk.range_end],
      );
      if (chunk.is_compressed) {
        const { bytes } = await one<{ bytes: string }>(
          `SELECT after_compression_total_bytes AS bytes FROM chunk_compression_stats('metrics') WHERE chunk_name = ?`,
          [chunk.chunk_name],
        );
        compressed.samples += Number(n);
        compressed.bytes += Number(bytes);
        continue;
      }
      const sizes = await one<{ heap: string; dedupe: string; timeidx: string }>(
        `SELECT pg_relation_size(?::regclass) AS heap,
                coalesce(sum(pg_relation_size(i.indexrelid)) FILTER (WHERE x.relname LIKE '%dedupe%'), 0) AS dedupe,
                coalesce(sum(pg_relation_size(i.indexrelid)) FILTER (WHERE x.relname LIKE '%time_idx%'), 0) AS timeidx
           FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid WHERE i.indrelid = ?::regclass`,
        [chunk.chunk, chunk.chunk],
      );
      raw.samples += Number(n);
      raw.heap += Number(sizes.heap);
      raw.dedupe += Number(sizes.dedupe);
      raw.timeidx += Number(sizes.timeidx);
    }
    const rollup = async (view: string) =>
      one<{ rows: string; bytes: string }>(
        // a row holds a bucket of every series of its set: counted per series
        `SELECT (SELECT sum(cardinality(avgs)) FROM ${view}) AS rows,
                hypertable_size(format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name)::regclass) AS bytes
           FROM timescaledb_information.continuous_aggregates WHERE view_name = ?`,
        [view],
      );
    const fiveMinutes = await rollup('metrics_5m');
    const hours = await rollup('metrics_1h');

    const perSample = {
      raw: (raw.heap + raw.dedupe + raw.timeidx) / raw.samples,
      heap: raw.heap / raw.samples,
      dedupe: raw.dedupe / raw.samples,
      timeIndex: raw.timeidx / raw.samples,
      compressed: compressed.bytes / compressed.samples,
      row5m: Number(fiveMinutes.bytes) / Number(fiveMinutes.rows),
      row1h: Number(hours.bytes) / Number(hours.rows),
    };
    console.log(
      `  per sample uncompressed ${perSample.raw.toFixed(1)} B (heap ${perSample.heap.toFixed(1)}, dedupe index ` +
        `${perSample.dedupe.toFixed(1)}); compressed ${perSample.compressed.toFixed(2)} B; metrics_5m ` +
        `${perSample.row5m.toFixed(1)} B and metrics_1h ${perSample.row1h.toFixed(1)} B per series and bucket`,
    );

    // steady state for 1,000 systems with this many series each, one sample per series every 30 s
    const seriesTotal = 1000 * series;
    const perDay = seriesTotal * 2880;
    /** Raw compressed after `compressAfterDays`; rollups after `rollupsAfterDays` (null: never). */
    const steady = (compressAfterDays: number, rawBytes: number, rollupsAfterDays: number | null) => {
      const rollup = (perDayRows: number, days: number, uncompressedRow: number, compressedRow: number) => {
        const plainDays = rollupsAfterDays === null ? days : Math.min(days, rollupsAfterDays);
        return seriesTotal * perDayRows * (plainDays * uncompressedRow + (days - plainDays) * compressedRow);
      };
      const parts = {
        uncompressed: perDay * compressAfterDays * rawBytes,
        compressed: perDay * (7 - compressAfterDays) * perSample.compressed,
        fiveMinutes: rollup(288, 30, perSample.row5m, compressedRows.row5m),
        hours: rollup(24, 400, perSample.row1h, compressedRows.row1h),
      };
      const total = Object.values(parts).reduce((a, b) => a + b, 0);
      return (
        `${(total / GB).toFixed(1)} GB (raw uncompressed ${(parts.uncompressed / GB).toFixed(1)}, compressed ` +
        `${(parts.compressed / GB).toFixed(1)}, metrics_5m ${(parts.fiveMinutes / GB).toFixed(1)}, metrics_1h ${(parts.hours / GB).toFixed(1)})`
      );
    };
    // lever: the rollups compressed too (continuous aggregates can be; their chunks hold old buckets)
    const compressedRollup = async (view: string) => {
      await knex.raw(`ALTER MATERIALIZED VIEW ${view} SET (timescaledb.compress = true)`);
      await knex.raw(
        `SELECT compress_chunk(c, if_not_compressed => true) FROM timescaledb_information.continuous_aggregates a,
                show_chunks(format('%I.%I', a.materialization_hypertable_schema, a.materialization_hypertable_name)::regclass) c
          WHERE a.view_name = ?`,
        [view],
      );
      return rollup(view);
    };
    const fiveMinutesCompressed = await compressedRollup('metrics_5m');
    const hoursCompressed = await compressedRollup('metrics_1h');
    const compressedRows = {
      row5m: Number(fiveMinutesCompressed.bytes) / Number(fiveMinutesCompressed.rows),
      row1h: Number(hoursCompressed.bytes) / Number(hoursCompressed.rows),
    };
    console.log(
      `  rollups compressed: metrics_5m ${compressedRows.row5m.toFixed(1)} B, metrics_1h ${compressedRows.row1h.toFixed(1)} B per series and bucket`,
    );
    await lateReports(knex, series);
    console.log(`  steady state, 1,000 systems × ${series} series every 30 s, default retention:`);
    console.log(`    rollups compressed after 8 days (the step), raw after 2 days: ${steady(2, perSample.raw, 8)}`);
    console.log(`    … and raw compressed after 6 hours (METRICS_COMPRESS_AFTER): ${steady(0.25, perSample.raw, 8)}`);
  } finally {
    await close();
  }
}

/**
 * What a late report costs when its time falls in a compressed chunk (an agent's buffer delivered
 * after an outage): the group commit's statement shape (unnest, ON CONFLICT DO NOTHING) for one
 * report of `series` samples three days back, new and again as a duplicate, against the same into
 * the uncompressed newest chunk.
 */
async function lateReports(knex: Knex, series: number): Promise<void> {
  const insert = async (at: Date, system: number) => {
    const started = performance.now();
    const result = (await knex.raw(
      `INSERT INTO metrics (time, system_id, set_id, vals)
       SELECT ?::timestamptz, ?, metric_series_set_id(array_agg('late.metric.' || g), array_agg(''::text)),
              array_agg(g::real)
         FROM generate_series(1, ?) g
       ON CONFLICT DO NOTHING`,
      [at, system, series],
    )) as { rowCount: number };
    return { ms: performance.now() - started, stored: result.rowCount * series };
  };
  const timed = async (label: string, at: Date) => {
    const runs: number[] = [];
    let stored = 0;
    for (let system = 1; system <= 20; system++) {
      const result = await insert(new Date(at.getTime() + system * 1000), system);
      runs.push(result.ms);
      stored += result.stored;
    }
    const again = await insert(new Date(at.getTime() + 1000), 1);
    runs.sort((a, b) => a - b);
    console.log(
      `  a late report of ${series} samples ${label}: median ${runs[10]?.toFixed(1)} ms, max ${runs.at(-1)?.toFixed(1)} ms ` +
        `(${stored} of ${20 * series} stored; the same report again: ${again.stored} stored, ${again.ms.toFixed(1)} ms)`,
    );
  };
  await timed('into the uncompressed newest chunk', new Date(Date.now() - 10 * 60_000));
  await timed('into a compressed chunk (3 days back)', new Date(Date.now() - 3 * 86_400_000));
}
