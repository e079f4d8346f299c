/**
 * A mass outage: 10,000 systems in 50 customers and 100 clusters go silent at once (a network
 * partition, a proxy failure in front of Argus). One run opens every offline alert and the cluster
 * incidents within 5 s, with one notification per incident, not per system; a second run changes
 * nothing; when the reports come back everything resolves with one notification per incident.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import type { Knex } from 'knex';
import { routeGlobally } from '../testing/channels.js';
import { MINUTE, withHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';

const CUSTOMERS = 50;
const CLUSTERS_PER_CUSTOMER = 2;
const SYSTEMS_PER_CLUSTER = 100;
const SYSTEMS = CUSTOMERS * CLUSTERS_PER_CUSTOMER * SYSTEMS_PER_CLUSTER;
const CLUSTERS = CUSTOMERS * CLUSTERS_PER_CUSTOMER;
/** The bound for the run in which the whole fleet goes offline. */
const RUN_BOUND_MS = 5000;

/** 10,000 systems that reported `ageMs` ago, seeded set-based (a few statements, not 10,000). */
async function seedFleet(knex: Knex, lastSeenAt: Date): Promise<void> {
  await knex.raw(
    `INSERT INTO customers (name, time_zone) SELECT 'Mass customer ' || g, 'UTC' FROM generate_series(1, ?) g`,
    [CUSTOMERS],
  );
  await knex.raw(
    `INSERT INTO clusters (customer_id, name, enrollment_key)
     SELECT c.id, 'site-' || c.id || '-' || k, md5(c.id || '-' || k || random())
       FROM customers c, generate_series(1, ?) k WHERE c.name LIKE 'Mass customer %'`,
    [CLUSTERS_PER_CUSTOMER],
  );
  await knex.raw(
    `INSERT INTO systems (customer_id, cluster_id, name, hostname, status, offline_alerts, last_seen_at)
     SELECT cl.customer_id, cl.id, 'mass-' || cl.id || '-' || g, 'mass-' || cl.id || '-' || g || '.example.net',
            'ONLINE', true, ?
       FROM clusters cl, generate_series(1, ?) g`,
    [lastSeenAt, SYSTEMS_PER_CLUSTER],
  );
  await knex.raw('ANALYZE');
}

const count = async (query: Knex.QueryBuilder) => Number((await query.count('* as n'))[0]?.n);

/** Deliveries queued so far: channel outbox rows and account e-mails. */
async function deliveries(h: EvaluationHarness) {
  return {
    channel: await count(h.knex('channel_deliveries')),
    mail: await count(h.knex('alert_notifications')),
  };
}

/** An e-mail channel to a fixed address (never sent here: the outbox rows are what is counted). */
async function outboxChannel(knex: Knex): Promise<number> {
  const [row] = await knex('notification_channels')
    .insert({ name: 'On call', type: 'email', target: 'oncall@example.com', min_severity: 'INFO' })
    .returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}

describe('a mass outage', () => {
  it('opens 10,000 offline alerts and the cluster incidents in one run within 5 s, one notification per incident', () =>
    withHarness(async (h) => {
      const accounts = await h.knex('notification_channels').where({ target: 'accounts' }).first('id');
      await routeGlobally(h.knex, [accounts.id, await outboxChannel(h.knex)]);
      await h.account({ role: 'ADMIN' });
      await h.setMail({ enabled: false });
      await seedFleet(h.knex, h.clock.now());
      h.clock.advance(3 * MINUTE);

      const started = performance.now();
      const outage = await h.evaluation.run();
      const ms = performance.now() - started;
      assert.ok(ms <= RUN_BOUND_MS, `the run took ${ms.toFixed(0)} ms`);
      assert.equal(outage.health.marked_offline, SYSTEMS);
      assert.equal(outage.alerts.triggered, SYSTEMS);
      assert.equal(await count(h.knex('alerts').where({ state: 'open', rule_kind: 'offline' })), SYSTEMS);
      assert.equal(await count(h.knex('systems').where({ status: 'OFFLINE' })), SYSTEMS);
      assert.equal(await count(h.knex('incidents').where({ state: 'open' }).whereNotNull('cluster_id')), CLUSTERS);
      const queued = await deliveries(h);
      assert.equal(queued.channel, CLUSTERS, 'one channel delivery per cluster incident, none per system');

      // still dark: nothing changes
      h.clock.advance(MINUTE);
      const again = await h.evaluation.run();
      assert.deepEqual([again.alerts.triggered, again.alerts.resolved, again.health.marked_offline], [0, 0, 0]);
      assert.deepEqual(await deliveries(h), queued);

      // everything reports again: all resolves, one notification per incident
      await h.knex('systems').update({ last_seen_at: h.clock.now(), status: 'ONLINE' });
      h.clock.advance(MINUTE);
      const started2 = performance.now();
      const back = await h.evaluation.run();
      const ms2 = performance.now() - started2;
      assert.ok(ms2 <= RUN_BOUND_MS, `the recovery run took ${ms2.toFixed(0)} ms`);
      assert.equal(back.alerts.resolved, SYSTEMS);
      assert.equal(await count(h.knex('alerts').where({ state: 'open' })), 0);
      assert.equal(await count(h.knex('incidents').where({ state: 'open' })), 0);
      const after = await deliveries(h);
      assert.equal(after.channel - queued.channel, CLUSTERS, 'one resolved delivery per cluster incident');
    }));
});
