/**
 * `npm run bench -- evaluate --mass-outage [--systems 20000]`: the whole fleet (100 systems per
 * customer and cluster, the full metric catalogue, the default rules) stops reporting at once, as
 * in a network partition in front of Argus: one run opens an offline alert per system (one
 * transition each), the cluster incidents and the fleet incident; a run while still dark; every
 * agent reports again: one run resolves them all; then a steady run. Prints each run's time (the
 * service's run: what the endpoint answers after) and what it did. Figures only.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { createKnex } from '../../db/connection.js';
import { ensureDefaultRules } from '../../db/seed-rules.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { benchEvaluation, seedFleet } from './evaluate-fleet.js';

type Evaluation = ReturnType<typeof benchEvaluation>;

async function timedRun(knex: Knex, evaluation: Evaluation, label: string): Promise<void> {
  const started = performance.now();
  const result = await evaluation.run();
  const ms = performance.now() - started;
  await evaluation.settled();
  const incidents = await knex('incidents').where({ state: 'open' }).select('kind').count('* as n').groupBy('kind');
  const deliveries = Number((await knex('channel_deliveries').count('* as n'))[0]?.n);
  console.log(
    `${label}: ${ms.toFixed(0)} ms (triggered ${result.alerts.triggered}, resolved ${result.alerts.resolved}, ` +
      `marked offline ${result.health.marked_offline}; open incidents ${incidents.map((r) => `${r.kind} ${r.n}`).join(', ') || 'none'}; ` +
      `channel deliveries so far ${deliveries})`,
  );
}

/** What ingest does when every agent reports again: newest values, last seen, status back to ONLINE. */
async function everyoneReports(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE system_latest SET times = array_fill(now(), ARRAY[cardinality(times)])`);
  await knex.raw(
    `UPDATE systems SET last_seen_at = now(),
            status = CASE WHEN status IN ('OFFLINE', 'STANDBY') THEN 'ONLINE' ELSE status END`,
  );
}

export async function benchMassOutage(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { systems: { type: 'string', default: '20000' } } });
  const systems = Number(values.systems);
  const db = await createTestDatabase();
  const knex = createKnex({ url: db.url, poolMax: 5 });
  try {
    await ensureDefaultRules(knex);
    const t0 = performance.now();
    await seedFleet(knex, systems);
    console.log(`seeded ${systems} systems in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const evaluation = benchEvaluation(knex);
    await timedRun(knex, evaluation, 'first run (every system reporting)');
    await everyoneReports(knex);
    await timedRun(knex, evaluation, 'steady run');

    // the agents go silent: their last report 3 minutes ago (the offline threshold is 2)
    await knex.raw(`UPDATE systems SET last_seen_at = now() - interval '3 minutes'`);
    await knex.raw(
      `UPDATE system_latest SET times = array_fill(now() - interval '3 minutes', ARRAY[cardinality(times)])`,
    );
    await knex.raw('VACUUM ANALYZE systems, system_latest');
    await timedRun(knex, evaluation, `outage run (${systems} systems silent at once)`);
    await timedRun(knex, evaluation, 'still dark');
    await everyoneReports(knex);
    await timedRun(knex, evaluation, 'recovery run (every system back)');
    await everyoneReports(knex);
    await timedRun(knex, evaluation, 'steady run after');
  } finally {
    await knex.destroy();
    await db.drop();
  }
}
