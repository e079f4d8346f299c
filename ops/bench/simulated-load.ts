/**
 * What the storage benchmarks load: the agent simulator's hosts (the full catalogue, drifting values
 * rounded like a real agent's), one report every 30 s, written with multi-row inserts.
 */
import type { Knex } from 'knex';
import { SimulatedHost } from '../agent-sim/catalogue.js';

const INTERVAL_MS = 30_000;
const BATCH_ROWS = 20_000;

/**
 * `hours` of reports for hosts 1..`systems`, ending a minute ago: into `metrics` as one row per report,
 * or into `table`, one row per sample (time, system_id, name, instance, value).
 */
export async function loadSimulatedSamples(
  knex: Knex,
  {
    table = 'metrics',
    systems,
    hours,
    containers = 0,
  }: { table?: string; systems: number; hours: number; containers?: number },
): Promise<{ rows: number; seriesPerHost: number }> {
  if (table !== 'metrics') return loadSamples(knex, table, systems, hours, containers);
  await knex.raw(
    `CREATE UNLOGGED TABLE simulated_samples (time timestamptz, system_id int, name text, instance text, value float8)`,
  );
  const loaded = await loadSamples(knex, 'simulated_samples', systems, hours, containers);
  // a report's samples in the simulator's order; one series set per distinct order
  await knex.raw(`
    INSERT INTO metrics (time, system_id, set_id, vals)
    SELECT time, system_id, metric_series_set_id(names, instances), vals
      FROM (SELECT time, system_id, array_agg(name ORDER BY k) AS names, array_agg(instance ORDER BY k) AS instances,
                   array_agg(value ORDER BY k)::real[] AS vals
              FROM (SELECT *, row_number() OVER () AS k FROM simulated_samples) s
             GROUP BY time, system_id) r`);
  await knex.raw('DROP TABLE simulated_samples');
  return loaded;
}

async function loadSamples(
  knex: Knex,
  table: string,
  systems: number,
  hours: number,
  containers: number,
): Promise<{ rows: number; seriesPerHost: number }> {
  const end = Date.now() - 60_000;
  const reports = Math.floor((hours * 3_600_000) / INTERVAL_MS);
  let batch = { t: [] as string[], s: [] as number[], n: [] as string[], i: [] as string[], v: [] as number[] };
  const flush = async () => {
    if (!batch.t.length) return;
    await knex.raw(
      `INSERT INTO ${table} (time, system_id, name, instance, value)
       SELECT * FROM unnest(?::timestamptz[], ?::int[], ?::text[], ?::text[], ?::float8[])`,
      [batch.t, batch.s, batch.n, batch.i, batch.v],
    );
    batch = { t: [], s: [], n: [], i: [], v: [] };
  };
  let rows = 0;
  const series = new Set<string>();
  for (let system = 1; system <= systems; system++) {
    const host = new SimulatedHost(system, undefined, containers);
    for (let r = 0; r < reports; r++) {
      const at = end - (reports - r) * INTERVAL_MS;
      const iso = new Date(at).toISOString();
      for (const sample of host.sample(at)) {
        batch.t.push(iso);
        batch.s.push(system);
        batch.n.push(sample.name);
        batch.i.push(sample.instance ?? '');
        batch.v.push(sample.value);
        if (system === 1) series.add(`${sample.name}{${sample.instance ?? ''}}`);
        rows += 1;
      }
      if (batch.t.length >= BATCH_ROWS) await flush();
    }
  }
  await flush();
  return { rows, seriesPerHost: series.size };
}
