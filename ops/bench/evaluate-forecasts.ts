/**
 * `npm run bench -- evaluate --forecasts`: forecast rules in the evaluation run over 10,000 systems
 * × 10 disks (the seeded disk.forecast and disk.forecast_critical, and every other default rule),
 * with 26 hours of hourly history per system (one report an hour: as many rows as the hourly
 * rollup holds; without TimescaleDB the fit bins the raw rows, here the same count). 1 % of the
 * systems fill a disk by 1 % an hour. Prints p50/max of the runs while every system is due for
 * its first line (at most 200 refitted per run), of the steady runs once all are fitted (the lines
 * that may fire read from the table at every run, and kept between runs, alternately), and the
 * time of one fit over the whole fleet. The hourly rollup is a plain table shaped like the
 * continuous aggregate; `--raw` leaves it out (the fit then bins the raw rows by the hour). Figures
 * only.
 *
 *   node --import tsx ops/bench/evaluate.ts --forecasts [--systems 10000] [--runs 10] [--raw]
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { createKnex } from '../../db/connection.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { fitLines } from '../../backend/src/evaluation/forecast-repo.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { benchEvaluation, seedFleet } from './evaluate-fleet.js';

const DISKS = 10;
const HOURS = 26;

/** 26 hourly reports of 10 disks per system; every 100th system fills /d3 by 1 % an hour. */
async function seedDiskHistory(knex: Knex): Promise<number> {
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
async function hourlyRollup(knex: Knex): Promise<void> {
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

export async function benchForecasts(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      systems: { type: 'string', default: '10000' },
      runs: { type: 'string', default: '10' },
      raw: { type: 'boolean', default: false },
    },
  });
  const systems = Number(values.systems);
  const db = await createTestDatabase();
  const knex = createKnex({ url: db.url, poolMax: 5 });
  try {
    await ensureDefaultRules(knex);
    await seedFleet(knex, systems);
    const seeded = await timed(() => seedDiskHistory(knex));
    if (!values.raw) await hourlyRollup(knex);
    console.log(
      `history: ${seeded.value} hourly rows of ${DISKS} disks in ${(seeded.ms / 1000).toFixed(0)} s; ` +
        `fitted from ${values.raw ? 'the raw rows' : 'metrics_1h'}`,
    );
    const evaluation = benchEvaluation(knex);

    const catchUp: number[] = [];
    let raised = 0;
    for (;;) {
      const before = Number((await knex('forecast_refits').count<{ n: string }[]>({ n: '*' }))[0]?.n);
      if (before >= systems) break;
      const run = await timed(() => evaluation.run());
      catchUp.push(run.ms);
      raised += run.value.alerts.triggered;
    }
    const lines = Number((await knex('forecast_fits').count<{ n: string }[]>({ n: '*' }))[0]?.n);
    console.log(
      `runs while the fleet's first lines are fitted (${catchUp.length} runs, 200 systems each): ${summary(catchUp)}; ` +
        `${lines} lines stored, ${raised} alerts raised`,
    );

    // before: the lines that may fire read from the table at every run; after: kept between runs
    const reading = benchEvaluation(knex, { keepForecastLines: false });
    const steady: number[] = [];
    const steadyReading: number[] = [];
    for (let i = 0; i < Number(values.runs); i++) {
      steadyReading.push((await timed(() => reading.run())).ms);
      steady.push((await timed(() => evaluation.run())).ms);
    }
    console.log(
      `steady runs, every line fitted this hour, alternately: lines read every run (before) ${summary(steadyReading)}; ` +
        `kept between runs (after) ${summary(steady)}`,
    );
    await reading.settled();
    await knex('alert_rules').where({ kind: 'forecast' }).update({ enabled: false });
    const without: number[] = [];
    for (let i = 0; i < Number(values.runs); i++) without.push((await timed(() => evaluation.run())).ms);
    console.log(`the same runs with the forecast rules disabled: ${summary(without)}`);

    const through = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const whole = await timed(() => fitLines(knex, 'disk.used_pct', through, 24, { customerIds: null }));
    console.log(
      `one fit of the whole fleet (the preview of a global rule): ${whole.value.length} lines in ${whole.ms.toFixed(0)} ms`,
    );
    await evaluation.settled();
  } finally {
    await knex.destroy();
    await db.drop();
  }
}
