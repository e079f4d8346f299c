/**
 * `npm run bench -- evaluate`: the evaluation run over 10,000
 * systems with the full metric catalogue (the agent simulator's generator,
 * ops/agent-sim/catalogue.ts) and the 44 + 1 default rules, in a throwaway
 * database. Prints p50/max of the run (the service's run: one transaction, the
 * same code the endpoint calls) with no history, then again after metric history
 * was added to `metrics` (the cost must not depend on it), and EXPLAIN of every
 * statement one run sends, checking that none touches `metrics`. Figures only.
 *
 *   node --import tsx ops/bench/evaluate.ts [--systems 10000] [--runs 10]
 *     [--history-hours 1] [--history-step-min 5] [--day-systems 1000] [--day-step-min 15]
 *
 * `--mass-outage [--systems 20000]`: the whole fleet goes silent at once and comes back
 * (ops/bench/evaluate-outage.ts). `--forecasts`: forecast rules over 10,000 systems × 10 disks
 * (ops/bench/evaluate-forecasts.ts).
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import pg from 'pg';
import { createKnex } from '../../db/connection.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { isMain } from '../../db/is-main.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { agentsReport, benchEvaluation, seedFleet } from './evaluate-fleet.js';
import { percentile } from './statistics.js';

/** History in `metrics`: every series of the first `systems` systems, every `stepMin` for `hours`. */
async function seedHistory(knex: Knex, systems: number, hours: number, stepMin: number): Promise<number> {
  const result = await knex.raw(
    `INSERT INTO metrics (time, system_id, set_id, vals)
     SELECT now() - make_interval(mins => k * ?), l.system_id, l.set_id, l.vals
       FROM (SELECT system_id, metric_series_set_id(names, instances) AS set_id, vals::real[] AS vals
               FROM system_latest WHERE system_id IN (SELECT id FROM systems ORDER BY id LIMIT ?)) l,
            generate_series(1, ?) k
     ON CONFLICT DO NOTHING`,
    [stepMin, systems, Math.floor((hours * 60) / stepMin)],
  );
  return (result as { rowCount: number }).rowCount;
}

async function timeRuns(knex: Knex, evaluation: ReturnType<typeof benchEvaluation>, runs: number, label: string) {
  const times: number[] = [];
  let last = null as Awaited<ReturnType<typeof evaluation.run>> | null;
  for (let i = 0; i < runs; i++) {
    await agentsReport(knex);
    const started = performance.now();
    last = await evaluation.run();
    times.push(performance.now() - started);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `${label}: ${runs} runs, p50 ${percentile(sorted, 50).toFixed(0)} ms, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms` +
      (last
        ? ` (last run: evaluated ${last.alerts.evaluated}, triggered ${last.alerts.triggered}, resolved ${last.alerts.resolved})`
        : ''),
  );
}

interface CapturedQuery {
  sql: string;
  bindings: readonly unknown[];
  uid: string;
  /** Time from sending to the answer, as the run saw it. */
  ms: number;
}

/** EXPLAIN of every statement a run sends (not executed: plain EXPLAIN), and whether any reads `metrics`. */
async function explainRun(url: string, captured: CapturedQuery[]): Promise<void> {
  const statements = captured.filter((q) => !/^\s*(BEGIN|COMMIT|ROLLBACK|SET |SELECT pg_advisory)/i.test(q.sql));
  let touching = 0;
  console.log(`\nQuery plans of one run (${statements.length} statements):`);
  // the captured SQL has native $n placeholders: send it through pg as it was sent
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const query of statements) {
    const result = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.sql}`, [...query.bindings]);
    const plan = result.rows.map((r) => r['QUERY PLAN']);
    const readsMetrics = plan.some((line) => /\son metrics(\s|$)|metrics_dedupe_idx/.test(line));
    if (readsMetrics) touching += 1;
    const text = query.sql.replace(/\s+/g, ' ').slice(0, 150);
    console.log(`\n-- [${query.ms.toFixed(1)} ms] ${text}${readsMetrics ? '   <-- READS metrics' : ''}`);
    for (const line of plan) console.log(`   ${line}`);
  }
  await client.end();
  console.log(`\nstatements of a run that read \`metrics\`: ${touching} (of ${statements.length})`);
}

export async function benchEvaluate(argv: string[]): Promise<void> {
  if (argv.includes('--mass-outage')) {
    await (await import('./evaluate-outage.js')).benchMassOutage(argv.filter((a) => a !== '--mass-outage'));
    return;
  }
  if (argv.includes('--forecasts')) {
    await (await import('./evaluate-forecasts.js')).benchForecasts(argv.filter((a) => a !== '--forecasts'));
    return;
  }
  const { values } = parseArgs({
    args: argv,
    options: {
      systems: { type: 'string', default: '10000' },
      runs: { type: 'string', default: '10' },
      'history-hours': { type: 'string', default: '1' },
      'history-step-min': { type: 'string', default: '5' },
      'day-systems': { type: 'string', default: '1000' },
      'day-step-min': { type: 'string', default: '15' },
      /** Keep the database (for EXPLAIN ANALYZE by hand); its name is printed. */
      keep: { type: 'boolean', default: false },
    },
  });
  const systems = Number(values.systems);
  const runs = Number(values.runs);
  const db = await createTestDatabase();
  const knex = createKnex({ url: db.url, poolMax: 5 });
  const captured: CapturedQuery[] = [];
  let capturing = false;
  const started = new Map<string, number>();
  knex.on('query', (query: { sql: string; bindings?: unknown[]; __knexQueryUid: string }) => {
    if (!capturing) return;
    started.set(query.__knexQueryUid, performance.now());
    captured.push({ sql: query.sql, bindings: query.bindings ?? [], uid: query.__knexQueryUid, ms: 0 });
  });
  knex.on('query-response', (_response: unknown, query: { __knexQueryUid: string }) => {
    const entry = captured.find((q) => q.uid === query.__knexQueryUid);
    const t = started.get(query.__knexQueryUid);
    if (entry && t !== undefined) entry.ms = performance.now() - t;
  });
  try {
    await ensureDefaultRules(knex);
    let t0 = performance.now();
    const latestRows = await seedFleet(knex, systems);
    console.log(
      `seeded ${systems} systems, ${latestRows} series in system_latest (${(latestRows / systems).toFixed(0)} each) ` +
        `in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const evaluation = benchEvaluation(knex);
    await timeRuns(knex, evaluation, 1, 'first run (pending conditions and alerts written)');
    await timeRuns(knex, evaluation, runs, 'steady runs, `metrics` empty');

    t0 = performance.now();
    const hourRows = await seedHistory(
      knex,
      systems,
      Number(values['history-hours']),
      Number(values['history-step-min']),
    );
    const dayRows = await seedHistory(knex, Number(values['day-systems']), 24, Number(values['day-step-min']));
    // the insert-triggered autovacuum of the history would otherwise run during the timed runs
    await knex.raw('VACUUM ANALYZE metrics');
    const size = await knex.raw<{ rows: { size: string }[] }>(
      `SELECT pg_size_pretty(pg_total_relation_size('metrics')) AS size`,
    );
    console.log(
      `history: ${systems} systems × ${values['history-hours']} h every ${values['history-step-min']} min (${hourRows} rows) + ` +
        `${values['day-systems']} systems × 1 day every ${values['day-step-min']} min (${dayRows} rows); ` +
        `metrics ${size.rows[0]?.size} in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    // the agents go on reporting: keep the newest values fresh
    await knex.raw(`UPDATE system_latest SET times = array_fill(now(), ARRAY[cardinality(times)])`);
    await knex.raw(`UPDATE systems SET last_seen_at = now()`);
    await knex.raw('VACUUM ANALYZE system_latest');
    await timeRuns(knex, evaluation, runs, 'steady runs, with history');

    await agentsReport(knex);
    capturing = true;
    await evaluation.run();
    capturing = false;
    await explainRun(db.url, captured);
    await evaluation.settled();
  } finally {
    await knex.destroy();
    if (values.keep) {
      await db.knex.destroy();
      console.log(`kept database ${db.name}`);
    } else await db.drop();
  }
}

if (isMain(import.meta.url)) await benchEvaluate(process.argv.slice(2));
