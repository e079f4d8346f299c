/**
 * `npm run bench -- evaluate --forecasts`: forecast rules in the evaluation run over 10,000 systems
 * × 10 disks (the seeded disk.forecast and disk.forecast_critical, and every other default rule),
 * with 26 hours of hourly history per system (one report an hour: as many rows as the hourly
 * rollup holds; without TimescaleDB the fit bins the raw rows, here the same count). 1 % of the
 * systems fill a disk by 1 % an hour. The agents report before every run, as they do between two
 * runs. Three copies of the database, each run in turn: this code with the forecast rules, the
 * same with them disabled, and (`--baseline DIR`: another checkout, e.g. the commit before) that
 * checkout's code with them. Prints p50/max of the runs while the fleet's first lines are fitted,
 * of the steady runs once all are, and the time of one fit over the whole fleet; `--profile` adds
 * the slowest statements of a fitting run and of a steady run of each code. The hourly rollup is a
 * plain table shaped like the continuous aggregate; `--raw` leaves it out (the fit then bins the
 * raw rows by the hour). Figures only.
 *
 *   node --import tsx ops/bench/evaluate.ts --forecasts [--systems 10000] [--runs 10] [--raw]
 *     [--baseline DIR] [--profile]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import pg from 'pg';
import { createKnex } from '../../db/connection.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { createForecastRepo } from '../../backend/src/evaluation/forecast-repo.js';
import { ADMIN_URL, createTestDatabase, databaseUrl } from '../../backend/src/testing/database.js';
import { agentsReport, benchEvaluation, seedFleet } from './evaluate-fleet.js';
import { printProfile, profileStatements } from './statement-profile.js';

const DISKS = 10;
const HOURS = 26;

/** 26 hourly reports of 10 disks per system; every 100th system fills /d3 by 1 % an hour. */
export async function seedDiskHistory(knex: Knex): Promise<number> {
  const instances = Array.from({ length: DISKS }, (_, d) => `/d${d}`);
  const result = await knex.raw(
    `WITH s AS (SELECT metric_series_set_id(array_fill('disk.used_pct'::text, ARRAY[?::int]), ?::text[]) AS set_id)
     INSERT INTO metrics (time, system_id, set_id, vals)
     SELECT date_trunc('hour', now()) - make_interval(hours => k) + INTERVAL '10 minutes', sys.id, s.set_id,
            ARRAY(SELECT (CASE WHEN sys.id % 100 = 0 AND d = 3 THEN 80 - k ELSE 40 + d + random() END)::real
                    FROM generate_series(0, ?::int - 1) d ORDER BY d)
       FROM systems sys, s, generate_series(1, ?::int) k`,
    [DISKS, instances, DISKS, HOURS],
  );
  await knex.raw('VACUUM ANALYZE metrics');
  return (result as { rowCount: number }).rowCount;
}

/** The hourly rollup as a plain table shaped like the continuous aggregate (no TimescaleDB here). */
export async function hourlyRollup(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE metrics_1h AS
      SELECT date_bin(INTERVAL '1 hour', time, TIMESTAMPTZ 'epoch') AS bucket, system_id, set_id, count(*) AS count,
             metrics_avg(vals) AS avgs, metrics_min(vals) AS mins, metrics_max(vals) AS maxs
        FROM metrics GROUP BY 1, 2, 3;
    CREATE INDEX metrics_1h_system_idx ON metrics_1h (system_id, bucket)`);
  await knex.raw('VACUUM ANALYZE metrics_1h');
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `p50 ${p50.toFixed(0)} ms, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms`;
}

interface Variant {
  label: string;
  knex: Knex;
  evaluation: { run(): Promise<unknown>; settled(): Promise<void> };
  /** Whether its forecast rules are on (its runs fit lines). */
  forecasts: boolean;
  fitting: number[];
  steady: number[];
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Copies of the seeded database (its connections closed for the copy): one a variant. */
async function copies(name: string, labels: string[]): Promise<string[]> {
  return withAdmin(async (client) => {
    const names: string[] = [];
    for (const label of labels) {
      const copy = `${name}_${label}`;
      await client.query(`CREATE DATABASE "${copy}" TEMPLATE "${name}"`);
      names.push(copy);
    }
    return names;
  });
}

const countOf = async (knex: Knex, table: string) =>
  Number((await knex(table).count<{ n: string }[]>({ n: '*' }))[0]?.n);

/** One timed run of the variant after its agents reported; `profile`: its statements too. */
async function runOnce(variant: Variant, profile: boolean): Promise<number> {
  await agentsReport(variant.knex);
  if (!profile) return (await timed(() => variant.evaluation.run())).ms;
  const profiled = await profileStatements(variant.knex, () => variant.evaluation.run());
  printProfile(variant.label, profiled);
  return profiled.ms;
}

/** Rounds of one run of each variant until every variant with forecasts has fitted the whole fleet. */
async function fittingRounds(variants: Variant[], systems: number, profile: boolean): Promise<void> {
  for (let round = 0; ; round++) {
    const due = await Promise.all(
      variants.map(async (v) => v.forecasts && (await countOf(v.knex, 'forecast_refits')) < systems),
    );
    if (!due.some(Boolean)) return;
    if (profile && round === 2) console.log('\nstatements of a run while the lines are fitted (round 3):');
    for (const [i, variant] of variants.entries()) {
      const ms = await runOnce(variant, profile && round === 2);
      if (due[i] || !variant.forecasts) variant.fitting.push(ms);
    }
  }
}

export async function benchForecasts(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      systems: { type: 'string', default: '10000' },
      runs: { type: 'string', default: '10' },
      raw: { type: 'boolean', default: false },
      baseline: { type: 'string' },
      profile: { type: 'boolean', default: false },
    },
  });
  const systems = Number(values.systems);
  const db = await createTestDatabase();
  let knex = createKnex({ url: db.url, poolMax: 5 });
  const labels = values.baseline ? ['without', 'before'] : ['without'];
  const copied: string[] = [];
  const variants: Variant[] = [];
  try {
    await ensureDefaultRules(knex);
    await seedFleet(knex, systems);
    const seeded = await timed(() => seedDiskHistory(knex));
    if (!values.raw) await hourlyRollup(knex);
    console.log(
      `history: ${seeded.value} hourly rows of ${DISKS} disks in ${(seeded.ms / 1000).toFixed(0)} s; ` +
        `fitted from ${values.raw ? 'the raw rows' : 'metrics_1h'}`,
    );
    await knex.destroy();
    await db.knex.destroy();
    copied.push(...(await copies(db.name, labels)));
    knex = createKnex({ url: db.url, poolMax: 5 });
    const knexOf = (name: string) => createKnex({ url: databaseUrl(name), poolMax: 5 });
    variants.push(variant('after', knex, benchEvaluation(knex), true));
    const withoutKnex = knexOf(copied[0] as string);
    await withoutKnex('alert_rules').where({ kind: 'forecast' }).update({ enabled: false });
    variants.push(variant('without forecasts', withoutKnex, benchEvaluation(withoutKnex), false));
    if (values.baseline) {
      const beforeKnex = knexOf(copied[1] as string);
      const fleet = (await import(path.resolve(values.baseline, 'ops/bench/evaluate-fleet.ts'))) as {
        benchEvaluation: (knex: Knex) => Variant['evaluation'];
      };
      variants.unshift(variant('before', beforeKnex, fleet.benchEvaluation(beforeKnex), true));
    }
    await fittingRounds(variants, systems, values.profile);
    for (let i = 0; i < Number(values.runs); i++)
      for (const v of variants) v.steady.push(await runOnce(v, values.profile && i === 1));
    report(variants, await countOf(knex, 'forecast_fits'));

    const through = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const whole = await timed(() =>
      createForecastRepo(knex).fitLines('disk.used_pct', through, 24, { customerIds: null }),
    );
    console.log(
      `one fit of the whole fleet (the preview of a global rule): ${whole.value.length} lines in ${whole.ms.toFixed(0)} ms`,
    );
  } finally {
    for (const v of variants) {
      await v.evaluation.settled();
      await v.knex.destroy();
    }
    if (!variants.length) await knex.destroy();
    await withAdmin(async (client) => {
      for (const name of copied) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    });
    await db.drop();
  }
}

function variant(label: string, knex: Knex, evaluation: Variant['evaluation'], forecasts: boolean): Variant {
  return { label, knex, evaluation, forecasts, fitting: [], steady: [] };
}

function report(variants: Variant[], lines: number): void {
  console.log(`\n${lines} lines stored; runs in turn, one of each variant a round:`);
  for (const v of variants)
    console.log(
      `  ${v.label.padEnd(18)} while the first lines are fitted (${v.fitting.length} runs): ${summary(v.fitting)}; ` +
        `steady (${v.steady.length} runs): ${summary(v.steady)}`,
    );
}
