/**
 * `npm run bench -- evaluate` (issue 5 item 10): the evaluation run over 10,000
 * systems with the full metric catalogue (the agent simulator's generator,
 * ops/agent-sim/catalogue.ts) and the 36 + 1 default rules, in a throwaway
 * database. Prints p50/max of the run (the service's run: one transaction, the
 * same code the endpoint calls) with no history, then again after metric history
 * was added to `metrics` (the cost must not depend on it), and EXPLAIN of every
 * statement one run sends, checking that none touches `metrics`. Figures only.
 *
 *   node --import tsx ops/bench/evaluate.ts [--systems 10000] [--runs 10]
 *     [--history-hours 1] [--history-step-min 5] [--day-systems 1000] [--day-step-min 15]
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import pg from 'pg';
import { createKnex } from '../../db/connection.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { createMemoryBus } from '../../backend/src/bus/memory-bus.js';
import { createEvaluation } from '../../backend/src/evaluation/service.js';
import { randomToken } from '../../backend/src/lib/crypto.js';
import { isMain } from '../../db/is-main.js';
import { createNotificationsRepo } from '../../backend/src/notifications/repo.js';
import { createAlertNotifier } from '../../backend/src/notifications/service.js';
import { createDeliveriesRepo } from '../../backend/src/notifications/deliveries-repo.js';
import { createSecretBox } from '../../backend/src/lib/secret-box.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { captureLogger } from '../../backend/src/testing/logger.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';

const SYSTEMS_PER_CUSTOMER = 100;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function seedFleet(knex: Knex, systems: number): Promise<number> {
  const customers = Math.ceil(systems / SYSTEMS_PER_CUSTOMER);
  for (let c = 0; c < customers; c++) {
    const [customer] = await knex('customers')
      .insert({ name: `Bench ${c}` })
      .returning<{ id: number }[]>('id');
    const [cluster] = await knex('clusters')
      .insert({ customer_id: customer?.id, name: 'main', enrollment_key: randomToken(16) })
      .returning<{ id: number }[]>('id');
    // one routing policy per customer (issue 13: 100 policies at 10,000 systems), with repeat and escalation
    const [channel] = await knex('notification_channels')
      .insert({ customer_id: customer?.id, name: 'On call', type: 'email', target: `oncall-${c}@example.com` })
      .returning<{ id: number }[]>('id');
    await knex('notification_policies').insert({
      customer_id: customer?.id,
      routes: JSON.stringify([{ minSeverity: 'WARNING', channelIds: [channel?.id] }]),
      repeat_minutes: 5,
      escalate_after_minutes: 15,
      escalate_channel_ids: [channel?.id],
    });
    const count = Math.min(SYSTEMS_PER_CUSTOMER, systems - c * SYSTEMS_PER_CUSTOMER);
    await knex.raw(
      `INSERT INTO systems (customer_id, cluster_id, name, hostname, status, last_seen_at)
       SELECT ?, ?, 'bench-' || ? || '-' || g, 'bench-' || ? || '-' || g, 'ONLINE', now() FROM generate_series(1, ?) g`,
      [customer?.id ?? 0, cluster?.id ?? 0, c, c, count],
    );
  }
  // the newest values of the simulator's whole catalogue; 1% of hosts with a CPU spike, 0.5% a read-only disk
  const ids: number[] = (await knex('systems').orderBy('id').select('id')).map((r) => r.id);
  const now = Date.now();
  let rows = 0;
  for (let at = 0; at < ids.length; at += 500) {
    const cols = { system: [] as number[], name: [] as string[], instance: [] as string[], value: [] as number[] };
    for (const id of ids.slice(at, at + 500)) {
      const host = new SimulatedHost(id);
      if (id % 100 === 0) host.fault = 'cpu-spike';
      for (const sample of host.sample(now)) {
        cols.system.push(id);
        cols.name.push(sample.name);
        cols.instance.push(sample.instance ?? '');
        const readonly = id % 200 === 7 && sample.name === 'disk.readonly' && sample.instance === '/var';
        cols.value.push(readonly ? 1 : sample.value);
      }
    }
    // one row of arrays per system, in the catalogue's order, as ingest writes it (db/migrations/0018)
    await knex.raw(
      `INSERT INTO system_latest (system_id, names, instances, times, vals)
       SELECT s, array_agg(n ORDER BY k), array_agg(i ORDER BY k), array_agg(now() ORDER BY k), array_agg(v ORDER BY k)
         FROM unnest(?::int[], ?::text[], ?::text[], ?::float8[]) WITH ORDINALITY AS t(s, n, i, v, k)
        GROUP BY s`,
      [cols.system, cols.name, cols.instance, cols.value],
    );
    rows += cols.system.length;
  }
  // as autovacuum leaves a table that agents keep updating: hint bits set, visibility map current
  // (without it the first runs after the bulk insert pay ~200 ms for writing hint bits)
  await knex.raw('VACUUM ANALYZE');
  return rows;
}

/** History in `metrics`: every series of the first `systems` systems, every `stepMin` for `hours`. */
async function seedHistory(knex: Knex, systems: number, hours: number, stepMin: number): Promise<number> {
  const result = await knex.raw(
    `INSERT INTO metrics (time, system_id, name, instance, value)
     SELECT now() - make_interval(mins => k * ?), ml.system_id, ml.name, ml.instance, ml.value
       FROM metric_latest ml, generate_series(1, ?) k
      WHERE ml.system_id IN (SELECT id FROM systems ORDER BY id LIMIT ?)
     ON CONFLICT DO NOTHING`,
    [stepMin, Math.floor((hours * 60) / stepMin), systems],
  );
  return (result as { rowCount: number }).rowCount;
}

/** What ingest does between two runs, for the parts the run reads: every agent reported again. */
async function agentsReport(knex: Knex): Promise<void> {
  // a report rewrites its system's row: every series' time, and the uptime went on
  await knex.raw(
    `UPDATE system_latest SET times = array_fill(now(), ARRAY[cardinality(times)]),
            vals[array_position(names, 'uptime.s')] = vals[array_position(names, 'uptime.s')] + 60`,
  );
  await knex.raw(`UPDATE systems SET last_seen_at = now()`);
}

async function timeRuns(knex: Knex, evaluation: ReturnType<typeof createEvaluation>, runs: number, label: string) {
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

    const { log } = captureLogger();
    const mailer = { isEnabled: async () => false, send: async () => undefined };
    const evaluation = createEvaluation({
      db: knex,
      bus: createMemoryBus(),
      clock: { now: () => new Date() },
      log,
      mailer,
      notifier: createAlertNotifier({
        repo: createNotificationsRepo(knex),
        deliveries: createDeliveriesRepo(knex),
        box: createSecretBox({ settingsEncryptionKey: null, authSecret: 'b'.repeat(40) }, log),
        mailer,
        clock: { now: () => new Date() },
        log,
        authUrl: '',
      }),
    });
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
