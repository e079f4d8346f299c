/**
 * `npm run bench -- compression --real`: bytes per sample on the real TimescaleDB
 * 2.28.3 (a private PostgreSQL 15 cluster with the vendored build, as the real-extension tier
 * starts), for agent-simulator data, before and after compression, per lever: the settings the
 * step applies today, `instance` in segment-by, and values rounded to the precision a metric has.
 *
 *   node --import tsx ops/bench/run.ts compression --real [--systems 10] [--hours 24]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startRealTimescale } from './real-timescale.js';
import { loadSimulatedSamples } from './simulated-load.js';

interface Lever {
  name: string;
  segmentBy: string;
  orderBy: string;
  /** SQL over `value` for what is stored. */
  value: string;
}

const LEVERS: Lever[] = [
  {
    name: 'today (segment by system_id, name; order by instance, time DESC)',
    segmentBy: 'system_id, name',
    orderBy: 'instance, time DESC',
    value: 'value',
  },
  {
    name: 'segment by system_id, name, instance; order by time DESC',
    segmentBy: 'system_id, name, instance',
    orderBy: 'time DESC',
    value: 'value',
  },
  {
    name: '… and values rounded to 1 decimal (the precision a percentage or load has)',
    segmentBy: 'system_id, name, instance',
    orderBy: 'time DESC',
    value: 'round(value::numeric, 1)::float8',
  },
  {
    name: '… and whole numbers for byte, count and rate series (rounded to 0 decimals)',
    segmentBy: 'system_id, name, instance',
    orderBy: 'time DESC',
    value: `CASE WHEN name ~ '(bytes|_bps|count|\\.s$|errors|drops|procs|fds|inodes)' THEN round(value)::float8
                 ELSE round(value::numeric, 1)::float8 END`,
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
    await knex.raw('CREATE UNLOGGED TABLE staging (LIKE metrics)');
    const { rows } = await loadSimulatedSamples(knex, { table: 'staging', systems, hours });
    console.log(
      `compression (real TimescaleDB 2.28.3): ${systems} simulated hosts × ${hours} h every 30 s = ${rows} samples ` +
        `(generated in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
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
        `INSERT INTO metrics (time, system_id, name, instance, value)
         SELECT time, system_id, name, instance, ${lever.value} FROM staging`,
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
