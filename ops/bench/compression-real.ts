/**
 * `npm run bench -- compression --real`: bytes per sample on the real TimescaleDB
 * 2.28.3 (a private PostgreSQL 15 cluster with the vendored build, as the real-extension tier
 * starts), for agent-simulator data stored as the app stores it (one row per report, its values a
 * real[] in the order of its series set), before and after compression, per lever: the settings the
 * step applies today, other segment-by and order-by choices, and values rounded to the precision a
 * metric has before they are stored.
 *
 *   node --import tsx ops/bench/run.ts compression --real [--systems 10] [--hours 24]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { COMPRESS_ORDERBY, COMPRESS_SEGMENTBY } from '../../db/timescale/hypertable.js';
import { startRealTimescale } from './real-timescale.js';
import { loadSimulatedSamples } from './simulated-load.js';

interface Lever {
  name: string;
  segmentBy: string;
  orderBy: string;
  /** SQL over a staged row `r` (time, system_id, set_id, vals) and its set `s` (names): what is stored as vals. */
  vals: string;
}

/** Byte, count and rate series: whole numbers carry all their precision. */
const WHOLE = `'(bytes|_bps|count|\\.s$|errors|drops|procs|fds|inodes)'`;

const LEVERS: Lever[] = [
  {
    name: `today (segment by ${COMPRESS_SEGMENTBY.join(', ')}; order by ${COMPRESS_ORDERBY})`,
    segmentBy: COMPRESS_SEGMENTBY.join(', '),
    orderBy: COMPRESS_ORDERBY,
    vals: 'r.vals',
  },
  {
    name: 'segment by system_id; order by set_id, time DESC (fewer, longer segments)',
    segmentBy: 'system_id',
    orderBy: 'set_id, time DESC',
    vals: 'r.vals',
  },
  {
    name: 'today, values rounded to 1 decimal (the precision a percentage or load has)',
    segmentBy: COMPRESS_SEGMENTBY.join(', '),
    orderBy: COMPRESS_ORDERBY,
    vals: `ARRAY(SELECT round(v::numeric, 1)::real FROM unnest(r.vals) AS u(v))`,
  },
  {
    name: '… and whole numbers for byte, count and rate series',
    segmentBy: COMPRESS_SEGMENTBY.join(', '),
    orderBy: COMPRESS_ORDERBY,
    vals: `ARRAY(SELECT CASE WHEN n ~ ${WHOLE} THEN round(v::numeric)::real ELSE round(v::numeric, 1)::real END
                   FROM unnest(r.vals, s.names) WITH ORDINALITY AS u(v, n, k) ORDER BY k)`,
  },
];

export async function benchCompressionReal(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      real: { type: 'boolean', default: true },
      systems: { type: 'string', default: '10' },
      hours: { type: 'string', default: '24' },
    },
  });
  const systems = Number(values.systems);
  const hours = Number(values.hours);
  const { knex, close } = await startRealTimescale();
  try {
    const started = performance.now();
    const { rows } = await loadSimulatedSamples(knex, { systems, hours });
    // the reports as stored; each lever refills metrics from here
    await knex.raw('CREATE UNLOGGED TABLE staging AS SELECT time, system_id, set_id, vals FROM metrics');
    const reports = Number(
      ((await knex.raw('SELECT count(*) AS n FROM staging')) as { rows: { n: string }[] }).rows[0]?.n,
    );
    console.log(
      `compression (real TimescaleDB 2.28.3): ${systems} simulated hosts × ${hours} h every 30 s = ` +
        `${reports} reports, ${rows} samples (generated in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
    const size = async () =>
      Number(
        ((await knex.raw(`SELECT hypertable_size('metrics') AS bytes`)) as { rows: { bytes: string }[] }).rows[0]
          ?.bytes,
      );
    for (const lever of LEVERS) {
      await knex.raw('TRUNCATE metrics');
      await knex.raw(
        `ALTER TABLE metrics SET (timescaledb.compress_segmentby = '${lever.segmentBy}', timescaledb.compress_orderby = '${lever.orderBy}')`,
      );
      await knex.raw(
        `INSERT INTO metrics (time, system_id, set_id, vals)
         SELECT r.time, r.system_id, r.set_id, ${lever.vals}
           FROM staging r JOIN metric_series_sets s ON s.id = r.set_id`,
      );
      await knex.raw('VACUUM ANALYZE metrics');
      const plain = await size();
      const compressStarted = performance.now();
      await knex.raw('SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks(?) c', ['metrics']);
      const seconds = (performance.now() - compressStarted) / 1000;
      const compressed = await size();
      console.log(
        `  ${lever.name}: uncompressed ${(plain / rows).toFixed(1)} B/sample, compressed ${(compressed / rows).toFixed(2)} B/sample ` +
          `(${(plain / compressed).toFixed(1)}× smaller, compressed in ${seconds.toFixed(1)} s)`,
      );
    }
  } finally {
    await close();
  }
}
