/**
 * `npm run bench -- compression --real` (issue 20 item 4): bytes per sample on the real TimescaleDB
 * 2.28.3 (a private PostgreSQL 15 cluster with the vendored build, as the real-extension tier
 * starts), for agent-simulator data, before and after compression, per lever: the settings the
 * step applies today, `instance` in segment-by, and values rounded to the precision a metric has.
 *
 *   node --import tsx ops/bench/run.ts compression --real [--systems 10] [--hours 24]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createDatabase, startPrivatePostgres } from '../../backend/src/testing/private-postgres.js';
import { createKnex } from '../../db/connection.js';
import { loadRetentionConfig } from '../../db/environment.js';
import { runMigrations } from '../../db/migrate.js';
import { setupTimescale } from '../../db/timescale.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';

const INTERVAL_MS = 30_000;
const BATCH_ROWS = 20_000;

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

async function loadStaging(knex: Knex, systems: number, hours: number): Promise<number> {
  await knex.raw('CREATE UNLOGGED TABLE staging (LIKE metrics)');
  const end = Date.now() - 60_000;
  const reports = Math.floor((hours * 3_600_000) / INTERVAL_MS);
  let batch = { t: [] as string[], s: [] as number[], n: [] as string[], i: [] as string[], v: [] as number[] };
  const flush = async () => {
    if (!batch.t.length) return;
    await knex.raw(
      `INSERT INTO staging (time, system_id, name, instance, value)
       SELECT * FROM unnest(?::timestamptz[], ?::int[], ?::text[], ?::text[], ?::float8[])`,
      [batch.t, batch.s, batch.n, batch.i, batch.v],
    );
    batch = { t: [], s: [], n: [], i: [], v: [] };
  };
  let rows = 0;
  for (let system = 1; system <= systems; system++) {
    const host = new SimulatedHost(system);
    for (let r = 0; r < reports; r++) {
      const at = end - (reports - r) * INTERVAL_MS;
      const iso = new Date(at).toISOString();
      for (const sample of host.sample(at)) {
        batch.t.push(iso);
        batch.s.push(system);
        batch.n.push(sample.name);
        batch.i.push(sample.instance ?? '');
        batch.v.push(sample.value);
        rows += 1;
      }
      if (batch.t.length >= BATCH_ROWS) await flush();
    }
  }
  await flush();
  return rows;
}

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
  const silent = pino({ level: 'silent' });
  const cluster = await startPrivatePostgres({ timescale: true });
  await createDatabase(cluster, 'argus');
  const knex = createKnex({ url: cluster.url('argus'), poolMax: 1, statementTimeoutMs: 0 });
  try {
    await runMigrations(knex);
    const outcome = await setupTimescale(knex, loadRetentionConfig({}), silent);
    if (!outcome.ok) throw new Error(`TimescaleDB step failed: ${outcome.messages.join('; ')}`);
    // the scheduler's own runs would compress under the measurement
    const jobs = (await knex.raw(
      "SELECT job_id FROM timescaledb_information.jobs WHERE proc_name LIKE 'policy_%'",
    )) as {
      rows: { job_id: number }[];
    };
    for (const job of jobs.rows) await knex.raw('SELECT alter_job(?, scheduled => false)', [job.job_id]);
    const started = performance.now();
    const rows = await loadStaging(knex, systems, hours);
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
    await knex.destroy();
    await cluster.destroy();
  }
}
