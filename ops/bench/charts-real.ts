/**
 * `npm run bench -- charts --real`: chart requests through the real HTTP stack on the real
 * TimescaleDB 2.28.3 (a private PostgreSQL 15 cluster with the vendored build), with the step's real
 * continuous aggregates: 400 days of history for 100 systems, one row per report of 60 series
 * (hourly reports older than 30 days, every 5 minutes up to 2 days ago, every 30 s since; the charted
 * series in the middle of the set), `metrics_1h` refreshed over all of it and `metrics_5m` over the
 * 30 days it keeps. Target: 7 d, 30 d and 400 d p95 ≤ 50 ms.
 *
 *   node --import tsx ops/bench/run.ts charts --real [--systems 100] [--requests 200]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createAccount } from '../../backend/src/testing/accounts.js';
import { startTestServer, testConfig } from '../../backend/src/testing/app.js';
import { Client } from '../../backend/src/testing/http.js';
import { measure } from './charts.js';
import { startRealTimescale } from './real-timescale.js';

const DAY = 86_400_000;
const METRIC = 'cpu.usage_pct';

export async function benchChartsReal(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      real: { type: 'boolean', default: true },
      systems: { type: 'string', default: '100' },
      requests: { type: 'string', default: '200' },
    },
  });
  const systems = Number(values.systems);
  const requests = Number(values.requests);
  const { url, knex, close } = await startRealTimescale();
  try {
    const seeded = performance.now();
    const [customer] = await knex('customers').insert({ name: 'Bench' }).returning('id');
    await knex.raw(
      `INSERT INTO systems (customer_id, name, hostname, status) SELECT ?, 'bench-' || g, 'bench-' || g, 'ONLINE'
         FROM generate_series(1, ?) g`,
      [(customer as { id: number }).id, systems],
    );
    const wave = `50 + 40 * sin(extract(epoch FROM t) / 3600 + s.id + k)`;
    const [set] = (
      (await knex.raw(
        `SELECT metric_series_set_id(array_agg(CASE WHEN k = 30 THEN ? ELSE 'bench.m' || k END ORDER BY k),
                                     array_fill(''::text, ARRAY[60])) AS id
           FROM generate_series(1, 60) k`,
        [METRIC],
      )) as { rows: { id: number }[] }
    ).rows;
    for (const [from, to, step] of [
      ['400 days', '30 days', '1 hour'],
      ['30 days', '2 days', '5 minutes'],
      ['2 days', '0 seconds', '30 seconds'],
    ] as const) {
      await knex.raw(
        `INSERT INTO metrics (time, system_id, set_id, vals)
         SELECT t, s.id, ?, ARRAY(SELECT (${wave})::real FROM generate_series(1, 60) k ORDER BY k)
           FROM systems s, generate_series(date_trunc('hour', now()) - ?::interval, now() - ?::interval, ?::interval) t
         ON CONFLICT DO NOTHING`,
        [set?.id ?? 0, from, to, step],
      );
    }
    await knex.raw("CALL refresh_continuous_aggregate('metrics_1h', NULL, date_trunc('hour', now()))");
    await knex.raw(
      "CALL refresh_continuous_aggregate('metrics_5m', now() - INTERVAL '30 days', date_trunc('hour', now()))",
    );
    await knex.raw('ANALYZE');
    const count = async (table: string) =>
      Number(((await knex.raw(`SELECT count(*) AS n FROM ${table}`)) as { rows: { n: string }[] }).rows[0]?.n);
    console.log(
      `charts (real TimescaleDB 2.28.3): ${systems} systems × 60 series over 400 days; rows: metrics ${await count('metrics')}, ` +
        `metrics_5m ${await count('metrics_5m')}, metrics_1h ${await count('metrics_1h')} ` +
        `(continuous aggregates, real-time on); seeded and refreshed in ${((performance.now() - seeded) / 1000).toFixed(0)} s`,
    );

    const server = await startTestServer(testConfig(url));
    try {
      const admin = await createAccount(knex, { role: 'ADMIN' });
      const client = new Client(server.url);
      const signed = await client.signIn(admin.email, admin.password);
      if (signed.status !== 200) throw new Error(`sign-in failed: ${signed.status}`);
      const ids = ((await client.get('/api/systems')).body as { id: number }[]).map((s) => s.id);
      const now = Date.now();
      const paths = (rangeMs: number) =>
        Array.from({ length: requests }, (_, i) => {
          const to = now - (i % 60) * 1000;
          return (
            `/api/systems/${ids[i % ids.length]}/metrics?name=${METRIC}` +
            `&from=${new Date(to - rangeMs).toISOString()}&to=${new Date(to).toISOString()}`
          );
        });
      await measure(client, 'warm-up', paths(DAY).slice(0, 20), Infinity);
      await measure(client, '2 days (raw)', paths(2 * DAY), 100);
      await measure(client, '7 days (5m)', paths(7 * DAY), 50);
      await measure(client, '30 days (5m)', paths(30 * DAY), 50);
      await measure(client, '400 days (1h)', paths(400 * DAY), 50);
    } finally {
      await server.stop();
    }
  } finally {
    await close();
  }
}
