/**
 * `npm run bench -- disk --real`: disk at steady state, on the real TimescaleDB 2.28.3. Simulates
 * `--days` (default 7) of agent-simulator reports every 30 s for `--systems` hosts (default 4), one
 * row per report, runs the compression policy and refreshes both rollups with `CALL run_job`,
 * measures what a sample costs uncompressed (with the dedupe index) and compressed and what a
 * rollup costs per series and bucket, and works out the steady state for 1,000 such systems under
 * the default retention (raw 7 d, compress after 2 d, metrics_5m 30 d, metrics_1h 400 d) at its
 * peak: a chunk is compressed only once all of it is past compress_after and dropped only once all
 * of it is past retention, so each table holds up to one chunk more of each. The rollups are
 * measured with the step's compression settings and chunk widths, then, on the same rows, with
 * those of the release before (TimescaleDB's defaults for a continuous aggregate, ten-day chunks).
 * A compressed rollup is counted by its compressed rows (heap and TOAST): what grows with the
 * fleet; a chunk's fixed pages (indexes, free-space maps: ~100 kB each) weigh on 4 hosts, not on 1,000.
 *
 * It also prints where the bytes go: per table, its uncompressed chunks' heap, indexes and TOAST and
 * its compressed chunks' (`disk-breakdown.ts`); `--alternatives` measures other rollup layouts on
 * the same rows (one array, a row per series, averages only, TOAST lz4, …).
 *
 *   node --import tsx ops/bench/run.ts disk --real [--systems 4] [--days 7] [--containers 50] [--alternatives]
 *
 * `--containers N`: each host also reports N running containers (13 series each).
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { bytesByState, compressedRowsBytes, rollupAlternatives } from './disk-breakdown.js';
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
      alternatives: { type: 'boolean', default: false },
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
    // raw compressed and both rollups refreshed; the rollups are measured uncompressed first
    const compressesRollup = (j: (typeof jobs)[number]) =>
      j.proc_name === 'policy_compression' && j.hypertable_name !== 'metrics';
    for (const job of jobs.filter((j) => j.proc_name !== 'policy_retention' && !compressesRollup(j)))
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

    /** Every chunk of a rollup compressed with its current settings; bytes per series and bucket. */
    const compressedRollup = async (view: string) => {
      const mat = await materialisation(knex, view);
      await knex.raw('SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks(?::regclass) c', [mat]);
      const { rows, bytes } = await rollup(view);
      const data = await one<{ bytes: string }>(`SELECT (${compressedRowsBytes(mat)}) AS bytes`);
      return { all: Number(bytes) / Number(rows), rows: Number(data.bytes) / Number(rows) };
    };
    const compressedNow = { m5: await compressedRollup('metrics_5m'), h1: await compressedRollup('metrics_1h') };
    const describeRollups = (c: typeof compressedNow) =>
      `metrics_5m ${c.m5.rows.toFixed(1)} B, metrics_1h ${c.h1.rows.toFixed(1)} B per series and bucket ` +
      `(with each chunk's fixed pages: ${c.m5.all.toFixed(1)} and ${c.h1.all.toFixed(1)} B)`;
    console.log(`  rollups compressed, the step's settings: ${describeRollups(compressedNow)}`);
    console.log('  where the bytes go (this run, every rollup chunk compressed):');
    const tables = [
      { label: 'metrics', table: 'metrics' },
      { label: 'metrics_5m', table: await materialisation(knex, 'metrics_5m') },
      { label: 'metrics_1h', table: await materialisation(knex, 'metrics_1h') },
    ];
    for (const line of await bytesByState(knex, tables)) console.log(`    ${line}`);
    if (values.alternatives) {
      console.log('  other rollup layouts on the same rows, per series and bucket:');
      for (const line of await rollupAlternatives(knex)) console.log(`    ${line}`);
    }
    // the same rows with the settings of the release before
    for (const view of ['metrics_5m', 'metrics_1h']) {
      const mat = await materialisation(knex, view);
      await knex.raw('SELECT decompress_chunk(c, if_compressed => true) FROM show_chunks(?::regclass) c', [mat]);
      await knex.raw(
        `ALTER MATERIALIZED VIEW ${view} SET (timescaledb.compress = true, timescaledb.compress_segmentby = '',
                                             timescaledb.compress_orderby = 'bucket, system_id, set_id')`,
      );
    }
    const compressedBefore = { m5: await compressedRollup('metrics_5m'), h1: await compressedRollup('metrics_1h') };
    console.log(
      `  rollups compressed, TimescaleDB's defaults (no segment; ${systems} hosts side by side, where 1,000 ` +
        `would put the same series' previous bucket beyond the compressor's reach): ${describeRollups(compressedBefore)}`,
    );

    // steady state at its peak for 1,000 systems with this many series each, one sample per series every 30 s
    const seriesTotal = 1000 * series;
    const perDay = seriesTotal * 2880;
    interface Layout {
      compressAfterDays: number;
      compress5mDays: number;
      chunk5mDays: number;
      compress1hDays: number;
      chunk1hDays: number;
      compressed5m: number;
      compressed1h: number;
    }
    /** Raw in one-day chunks. */
    const steady = ({ compressAfterDays, compress5mDays, chunk5mDays, compress1hDays, chunk1hDays, ...c }: Layout) => {
      const rollupBytes = (
        perDayRows: number,
        keptDays: number,
        [afterDays, chunkDays]: [number, number],
        plain: number,
        packed: number,
      ) => {
        const plainDays = afterDays + chunkDays;
        return seriesTotal * perDayRows * (plainDays * plain + (keptDays + chunkDays - plainDays) * packed);
      };
      const parts = {
        uncompressed: perDay * (compressAfterDays + 1) * perSample.raw,
        compressed: perDay * (7 - compressAfterDays) * perSample.compressed,
        fiveMinutes: rollupBytes(288, 30, [compress5mDays, chunk5mDays], perSample.row5m, c.compressed5m),
        hours: rollupBytes(24, 400, [compress1hDays, chunk1hDays], perSample.row1h, c.compressed1h),
      };
      const total = Object.values(parts).reduce((a, b) => a + b, 0);
      return (
        `${(total / GB).toFixed(1)} GB (raw uncompressed ${(parts.uncompressed / GB).toFixed(1)}, compressed ` +
        `${(parts.compressed / GB).toFixed(1)}, metrics_5m ${(parts.fiveMinutes / GB).toFixed(1)}, metrics_1h ${(parts.hours / GB).toFixed(1)})`
      );
    };
    const now = {
      compress5mDays: 2,
      chunk5mDays: 1,
      compress1hDays: 8,
      chunk1hDays: 10,
      compressed5m: compressedNow.m5.rows,
      compressed1h: compressedNow.h1.rows,
    };
    console.log(`  steady state at its peak, 1,000 systems × ${series} series every 30 s, default retention:`);
    console.log(
      `    the release before (metrics_5m compressed after 8 days in ten-day chunks, TimescaleDB's default rollup ` +
        `compression at ${systems} hosts: a lower bound): ` +
        steady({
          compressAfterDays: 2,
          compress5mDays: 8,
          chunk5mDays: 10,
          compress1hDays: 8,
          chunk1hDays: 10,
          compressed5m: compressedBefore.m5.rows,
          compressed1h: compressedBefore.h1.rows,
        }),
    );
    console.log(
      `    now (metrics_5m compressed after 2 days in one-day chunks, metrics_1h after 8 days in ten-day ones; ` +
        `raw after 2 days): ${steady({ ...now, compressAfterDays: 2 })}`,
    );
    console.log(`    … and METRICS_COMPRESS_AFTER=6 hours: ${steady({ ...now, compressAfterDays: 0.25 })}`);
    await lateReports(knex, series);
  } finally {
    await close();
  }
}

/** A rollup's materialisation hypertable, as a regclass text. */
async function materialisation(knex: Knex, view: string): Promise<string> {
  const result = (await knex.raw(
    `SELECT format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name) AS name
       FROM timescaledb_information.continuous_aggregates WHERE view_name = ?`,
    [view],
  )) as { rows: { name: string }[] };
  return result.rows[0]?.name ?? '';
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
