/**
 * `npm run bench -- charts`: p50/p95 of GET /api/systems/:id/metrics
 * through the real HTTP stack for the three chart sources:
 * - 2 days from raw `metrics` (the longest range charted from raw) and 7 days from raw
 *   with the rollups absent (the no-TimescaleDB path) (target p95 ≤ 100 ms)
 * - 30 days from `metrics_5m` and 400 days from `metrics_1h` (target p95 ≤ 50 ms)
 *
 * PostgreSQL 15 here has no TimescaleDB: plain tables shaped like the rollups
 * (bucket, system_id, set_id, count, avgs, mins, maxs) stand in for the
 * continuous aggregates, and the figures are labelled so. Sizes are printed.
 *
 *   node --import tsx ops/bench/charts.ts [--systems 20] [--metrics 6] [--requests 200]
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { startTestServer, testConfig } from '../../backend/src/testing/app.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { Client } from '../../backend/src/testing/http.js';
import { percentile } from './statistics.js';

const DAY = 86_400_000;
const RAW_INTERVAL_S = 30;

/** Sample history: raw every 30 s for 7 days, 5-minute rows for 30 days, hourly rows for 400 days. */
async function seed(db: TestDatabase, systems: number, metrics: number): Promise<Record<string, number>> {
  const customer = await db.knex('customers').insert({ name: 'Bench' }).returning('id');
  const customerId = (customer[0] as { id: number }).id;
  await db.knex.raw(
    `INSERT INTO systems (customer_id, name, hostname, status) SELECT ?, 'bench-' || g, 'bench-' || g, 'ONLINE'
       FROM generate_series(1, ?) g`,
    [customerId, systems],
  );
  // one row per report of `metrics` series (one series set), rollups shaped like the continuous aggregates
  const [set] = (
    (await db.knex.raw(
      `SELECT metric_series_set_id(array_agg('bench.m' || m ORDER BY m), array_fill(''::text, ARRAY[?::int])) AS id
         FROM generate_series(1, ?) m`,
      [metrics, metrics],
    )) as { rows: { id: number }[] }
  ).rows;
  const wave = (t: string, shift = 0) =>
    `ARRAY(SELECT (50 + 40 * sin(extract(epoch FROM ${t}) / 3600 + s.id + m) + ${shift})::real
             FROM generate_series(1, ${metrics}) m ORDER BY m)`;
  await db.knex.raw(`
    INSERT INTO metrics (time, system_id, set_id, vals)
    SELECT t, s.id, ${set?.id ?? 0}, ${wave('t')}
      FROM systems s, generate_series(now() - interval '7 days', now(), interval '${RAW_INTERVAL_S} seconds') t`);
  for (const [view, width, days] of [
    ['metrics_5m', '5 minutes', 30],
    ['metrics_1h', '1 hour', 400],
  ] as const) {
    await db.knex.raw(`
      CREATE TABLE ${view} AS
      SELECT b AS bucket, s.id AS system_id, ${set?.id ?? 0} AS set_id, 10::bigint AS count,
             ${wave('b')} AS avgs, ${wave('b', -5)} AS mins, ${wave('b', 5)} AS maxs
        FROM systems s,
             generate_series(date_trunc('hour', now()) - interval '${days} days', now(), interval '${width}') b`);
    await db.knex.raw(`CREATE UNIQUE INDEX ON ${view} (system_id, bucket, set_id)`);
  }
  await db.knex.raw('ANALYZE');
  const sizes: Record<string, number> = {};
  for (const table of ['metrics', 'metrics_5m', 'metrics_1h']) {
    const result = await db.knex.raw<{ rows: { n: string }[] }>(`SELECT count(*) AS n FROM ${table}`);
    sizes[table] = Number(result.rows[0]?.n ?? 0);
  }
  return sizes;
}

export async function measure(client: Client, label: string, paths: string[], target: number): Promise<void> {
  const latencies: number[] = [];
  const sources = new Set<string>();
  let points = 0;
  for (const path of paths) {
    const t0 = performance.now();
    const reply = await client.get(path);
    latencies.push(performance.now() - t0);
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    sources.add(reply.body.source);
    points = Math.max(points, reply.body.points.length);
  }
  latencies.sort((a, b) => a - b);
  const p95 = percentile(latencies, 95);
  console.log(
    `charts ${label}: source ${[...sources].join(',')}, ≤${points} points, ${paths.length} requests: ` +
      `p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms ` +
      `(target ≤ ${target} ms: ${p95 <= target ? 'met' : 'NOT met'})`,
  );
}

export async function benchCharts(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      systems: { type: 'string', default: '20' },
      metrics: { type: 'string', default: '6' },
      requests: { type: 'string', default: '200' },
    },
  });
  const systems = Number(values.systems);
  const metrics = Number(values.metrics);
  const requests = Number(values.requests);
  const db = await createTestDatabase();
  const server = await startTestServer(testConfig(db.url));
  try {
    const seedStarted = performance.now();
    const sizes = await seed(db, systems, metrics);
    console.log(
      `charts: ${systems} systems × ${metrics} metrics; rows: metrics ${sizes['metrics']} (7 d every ${RAW_INTERVAL_S} s), ` +
        `metrics_5m ${sizes['metrics_5m']} (30 d), metrics_1h ${sizes['metrics_1h']} (400 d); ` +
        `rollups are plain tables standing in for TimescaleDB continuous aggregates (PostgreSQL 15, no TimescaleDB); ` +
        `seeded in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`,
    );
    const admin = await createAccount(db.knex, { role: 'ADMIN' });
    const client = new Client(server.url);
    const signed = await client.signIn(admin.email, admin.password);
    if (signed.status !== 200) throw new Error(`sign-in failed: ${signed.status}`);
    const ids = ((await client.get('/api/systems')).body as { id: number }[]).map((s) => s.id);
    const now = Date.now();
    const paths = (rangeMs: number) =>
      Array.from({ length: requests }, (_, i) => {
        const id = ids[i % ids.length];
        const name = `bench.m${(i % metrics) + 1}`;
        // a slightly different window each time, so no two requests are the same query
        const to = now - (i % 60) * 1000;
        return `/api/systems/${id}/metrics?name=${name}&from=${new Date(to - rangeMs).toISOString()}&to=${new Date(to).toISOString()}`;
      });
    await measure(client, 'warm-up', paths(DAY).slice(0, 20), Infinity);
    await measure(client, '2 days (raw, the longest raw range)', paths(2 * DAY), 100);
    await measure(client, '30 days (5m)', paths(30 * DAY), 50);
    await measure(client, '400 days (1h)', paths(400 * DAY), 50);
    // without rollups (TimescaleDB absent) every range is read from raw with date_bin
    await db.knex.raw('DROP TABLE metrics_5m, metrics_1h');
    await measure(client, '7 days from raw (no rollups)', paths(7 * DAY), 100);
  } finally {
    await server.stop();
    await db.drop();
  }
}
