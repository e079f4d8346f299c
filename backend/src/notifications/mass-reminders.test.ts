/**
 * The repeat and escalation pass and the channel outbox at fleet scale: 10,000 open, unacknowledged
 * alerts due for a repeat and an escalation at once are 20,000 outbox rows queued in one run (one
 * statement of arrays, not nine bind parameters per row: PostgreSQL allows 65,535), marked once,
 * and sent by the outbox passes a bounded batch at a time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Knex } from 'knex';
import { sealedWebhook } from '../testing/channels.js';
import { MINUTE, withHarness } from '../testing/evaluation-harness.js';
import { startWebhookReceiver } from '../testing/webhook-receiver.js';

const ALERTS = 10_000;

/** 10,000 systems silent for 30 minutes, each with its offline alert open for 20 (no cluster: no incident). */
async function seedOpenAlerts(knex: Knex, now: Date): Promise<void> {
  const [customer] = await knex('customers')
    .insert({ name: 'Fleet', time_zone: 'UTC' })
    .returning<{ id: number }[]>('id');
  const customerId = (customer as { id: number }).id;
  await knex.raw(
    `INSERT INTO systems (customer_id, name, hostname, status, offline_alerts, last_seen_at)
     SELECT ?, 'host-' || g, 'host-' || g || '.example.net', 'OFFLINE', true, ?::timestamptz - interval '30 minutes'
       FROM generate_series(1, ?) g`,
    [customerId, now, ALERTS],
  );
  await knex.raw(
    `INSERT INTO alerts (rule_key, rule_kind, system_id, customer_id, severity, state, message, started_at)
     SELECT 'system.offline', 'offline', id, customer_id, 'CRITICAL', 'open', 'not seen',
            ?::timestamptz - interval '20 minutes'
       FROM systems`,
    [now],
  );
  await knex.raw('ANALYZE');
}

const count = async (query: Knex.QueryBuilder) => Number((await query.count('* as n'))[0]?.n);

describe('repeats and escalations of 10,000 alerts at once', () => {
  it('queues 20,000 outbox rows in one run, marks them once, and sends them a batch per pass', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        await h.setMail({ enabled: false });
        const channelId = await sealedWebhook(h.knex, h.box, `${hook.url}/hook`);
        await h
          .knex('notification_policies')
          .whereNull('customer_id')
          .update({
            routes: JSON.stringify([{ minSeverity: 'INFO', channelIds: [channelId] }]),
            repeat_minutes: 5,
            escalate_after_minutes: 15,
            escalate_channel_ids: [channelId],
          });
        await seedOpenAlerts(h.knex, h.clock.now());

        const run = await h.evaluation.run();
        assert.deepEqual([run.alerts.triggered, run.alerts.resolved], [0, 0], 'the alerts stay as they are');
        const byEvent = await h.knex('channel_deliveries').groupBy('event').select('event').count('* as n');
        assert.deepEqual(Object.fromEntries(byEvent.map((r) => [r.event, Number(r.n)])), {
          repeat: ALERTS,
          escalated: ALERTS,
        });
        assert.equal(await count(h.knex('alerts').whereNotNull('escalated_at')), ALERTS);
        assert.equal(await count(h.knex('alerts').where({ notified_at: h.clock.now() })), ALERTS);

        // a minute later nothing is due again: the repeat counts from now, the escalation happens once
        h.clock.advance(MINUTE);
        await h.evaluation.run();
        assert.equal(await count(h.knex('channel_deliveries')), 2 * ALERTS);

        // the outbox sends a bounded batch per pass, oldest first
        await h.evaluation.settled();
        const sent = await count(h.knex('channel_deliveries').where({ status: 'sent' }));
        assert.ok(sent > 0 && sent <= 1000, `sent ${sent} in the two passes`);
        assert.equal(hook.received.length, sent);
      } finally {
        await hook.close();
      }
    }));
});
