/**
 * The fleet the evaluation benches run on (ops/bench/evaluate.ts, evaluate-outage.ts): 100 systems
 * per customer and cluster with the agent simulator's full metric catalogue, and the evaluation as
 * the app builds it.
 */
import type { Knex } from 'knex';
import { createMemoryBus } from '../../backend/src/bus/memory-bus.js';
import { createEvaluationRepos } from '../../backend/src/evaluation/assembly.js';
import { createEvaluation } from '../../backend/src/evaluation/service.js';
import { randomToken } from '../../backend/src/lib/crypto.js';
import { createNotificationsRepo } from '../../backend/src/notifications/repo.js';
import { createRoutingRepo } from '../../backend/src/notifications/routing-repo.js';
import { createAlertNotifier } from '../../backend/src/notifications/service.js';
import { createDeliveriesRepo } from '../../backend/src/notifications/deliveries-repo.js';
import { createSecretBox } from '../../backend/src/lib/secret-box.js';
import { createForecastSettingsRepo } from '../../backend/src/settings/forecast/repo.js';
import { captureLogger } from '../../backend/src/testing/logger.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';

const SYSTEMS_PER_CUSTOMER = 100;

export async function seedFleet(knex: Knex, systems: number): Promise<number> {
  const customers = Math.ceil(systems / SYSTEMS_PER_CUSTOMER);
  for (let c = 0; c < customers; c++) {
    const [customer] = await knex('customers')
      .insert({ name: `Bench ${c}` })
      .returning<{ id: number }[]>('id');
    const [cluster] = await knex('clusters')
      .insert({ customer_id: customer?.id, name: 'main', enrollment_key: randomToken(16) })
      .returning<{ id: number }[]>('id');
    // one routing policy per customer (100 policies at 10,000 systems, as the steady bench), with repeat and escalation
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

/** What ingest does between two runs, for the parts the run reads: every agent reported again. */
export async function agentsReport(knex: Knex): Promise<void> {
  // a report rewrites its system's row: every series' time, and the uptime went on
  await knex.raw(
    `UPDATE system_latest SET times = array_fill(now(), ARRAY[cardinality(times)]),
            vals[array_position(names, 'uptime.s')] = vals[array_position(names, 'uptime.s')] + 60`,
  );
  await knex.raw(`UPDATE systems SET last_seen_at = now()`);
}

/** The evaluation as the app builds it, on the memory bus, the real clock and mail off. */
export function benchEvaluation(knex: Knex, options: { keepForecastLines?: boolean } = {}) {
  const { log } = captureLogger();
  const mailer = { isEnabled: async () => false, send: async () => undefined };
  return createEvaluation({
    db: knex,
    repos: createEvaluationRepos(knex),
    bus: createMemoryBus(),
    clock: { now: () => new Date() },
    log,
    mailer,
    notifier: createAlertNotifier({
      repo: createNotificationsRepo(knex),
      deliveries: createDeliveriesRepo(knex),
      routing: createRoutingRepo(knex),
      box: createSecretBox({ settingsEncryptionKey: null, authSecret: 'b'.repeat(40) }, log),
      mailer,
      clock: { now: () => new Date() },
      log,
      authUrl: '',
    }),
    forecastSettings: { get: () => createForecastSettingsRepo(knex).find() },
    ...options,
  });
}
