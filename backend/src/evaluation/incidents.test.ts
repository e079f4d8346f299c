/**
 * Cluster incidents through the real run: a site that goes dark is one incident
 * and one notification (webhook and account e-mail), not one per system; it resolves once when the
 * systems are back; a cluster losing less than half, or fewer than 3, raises per-system alerts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeGlobally, sealedWebhook } from '../testing/channels.js';
import { MINUTE, withHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { planIncidents } from './incidents.js';

/** A global webhook channel next to the accounts channel in the global policy. */
async function globalHook(h: EvaluationHarness, receiver: WebhookReceiver): Promise<void> {
  const accounts = await h.knex('notification_channels').where({ target: 'accounts' }).first('id');
  await routeGlobally(h.knex, [accounts.id, await sealedWebhook(h.knex, h.box, `${receiver.url}/hook`)]);
}

async function fleet(h: EvaluationHarness, size: number) {
  const customerId = await h.customer();
  const clusterId = await h.cluster(customerId);
  const systems = [];
  for (let i = 0; i < size; i++) systems.push(await h.system({ customerId, clusterId }));
  return { customerId, clusterId, systems };
}

describe('cluster incidents', () => {
  it('groups 10 systems of a cluster going silent into one incident with one notification, resolved once', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        await globalHook(h, hook);
        await h.account({ role: 'ADMIN' });
        const site = await fleet(h, 10);
        h.clock.advance(3 * MINUTE);
        const result = await h.run();
        assert.equal(result.alerts.triggered, 10, 'each system still has its offline alert');

        const [incident, ...more] = await h.knex('incidents').select('*');
        assert.equal(more.length, 0);
        assert.equal(incident.state, 'open');
        assert.match(incident.title, /^Site down: cluster-\d+$/);
        assert.equal(incident.cluster_id, site.clusterId);
        assert.equal(Number((await h.knex('alerts').where({ incident_id: incident.id }).count('* as n'))[0]?.n), 10);

        assert.equal(hook.received.length, 1, 'one webhook, not ten');
        const body = hook.received[0]?.json as { event: string; incident: { title: string; systems: number } };
        assert.equal(body.event, 'raised');
        assert.deepEqual([body.incident.title, body.incident.systems], [incident.title, 10]);
        await h.sink.nthMail(1);
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(h.sink.mails.length, 1, 'one e-mail, not ten');
        assert.match(
          h.sink.mails[0]?.headers ?? '',
          /^Subject: \[Argus\] CRITICAL: Site down: cluster-\d+ \(10 systems offline\)$/m,
        );

        // still dark: nothing more; back: one resolved
        h.clock.advance(MINUTE);
        await h.run();
        assert.equal(hook.received.length, 1);
        await h.reportMany(
          site.systems.map((s) => ({ systemId: s.id, samples: [{ name: 'cpu.usage_pct', value: 5 }] })),
        );
        h.clock.advance(MINUTE);
        const back = await h.run();
        assert.equal(back.alerts.resolved, 10);
        assert.deepEqual(hook.events(), ['raised', 'resolved']);
        assert.equal((await h.knex('incidents').where({ id: incident.id }).first()).state, 'resolved');
        await h.sink.nthMail(2);
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(h.sink.mails.length, 2);
      } finally {
        await hook.close();
      }
    }));

  it('counts two consecutive runs, and leaves a cluster losing fewer than half to per-system alerts', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        await globalHook(h, hook);
        const site = await fleet(h, 8);
        const small = await fleet(h, 10);
        const keepReporting = (ids: number[]) =>
          h.reportMany(ids.map((id) => ({ systemId: id, samples: [{ name: 'cpu.usage_pct', value: 5 }] })));
        const siteIds = site.systems.map((s) => s.id);
        const smallIds = small.systems.map((s) => s.id);

        // run 1: 2 of 8 and 2 of 10 go silent (per-system alerts); run 2: 2 more of the 8 (4 of 8: an incident)
        h.clock.advance(90_000);
        await keepReporting([...siteIds.slice(2), ...smallIds.slice(2)]);
        h.clock.advance(40_000);
        await keepReporting([...siteIds.slice(4), ...smallIds.slice(2)]);
        await h.run();
        assert.equal(hook.received.length, 4, 'four per-system raises');
        h.clock.advance(100_000);
        await keepReporting([...siteIds.slice(4), ...smallIds.slice(2)]);
        await h.run();
        const incidents = await h.knex('incidents').select('cluster_id');
        assert.deepEqual(
          incidents.map((i) => i.cluster_id),
          [site.clusterId],
        );
        const grouped = await h.knex('alerts').whereNotNull('incident_id').pluck('system_id');
        assert.deepEqual(grouped.sort(), siteIds.slice(0, 4).sort());
        assert.equal(hook.received.length, 5, 'the two new ones are in the incident: one more notification');
        assert.ok((hook.received[4]?.json as { incident?: unknown }).incident);
      } finally {
        await hook.close();
      }
    }));

  it('plans by share and minimum, and joins an open incident', () => {
    const systems = new Map<number, { clusterId: number | null; status: 'ONLINE' | 'PENDING' }>();
    for (let id = 1; id <= 6; id++) systems.set(id, { clusterId: 1, status: 'ONLINE' });
    systems.set(7, { clusterId: 1, status: 'PENDING' }); // never reported: not counted
    for (let id = 11; id <= 12; id++) systems.set(id, { clusterId: 2, status: 'ONLINE' });
    systems.set(21, { clusterId: 3, status: 'ONLINE' });
    const plan = planIncidents({
      candidates: [
        { alertId: 101, systemId: 1 },
        { alertId: 102, systemId: 2 },
        { alertId: 103, systemId: 3 },
        { alertId: 111, systemId: 11 },
        { alertId: 112, systemId: 12 },
        { alertId: 121, systemId: 21 },
      ],
      systems,
      open: new Map([[3, 99]]),
    });
    assert.deepEqual([...plan.create], [[1, [101, 102, 103]]], '3 of 6 reporting: half; cluster 2: only 2');
    assert.deepEqual([...plan.join], [[99, [121]]]);
  });
});

describe('planned disconnects', () => {
  it('does not mark a system offline within the grace its agent announced (agent.restarting), at most 10 minutes', () =>
    withHarness(async (h) => {
      const announced = await h.system();
      const capped = await h.system();
      const silent = await h.system();
      await h.agentEvent(announced.id, { type: 'agent.restarting', message: 'grace=240 updating to 1.4.0' });
      await h.agentEvent(capped.id, { type: 'agent.restarting', message: '3600' });
      h.clock.advance(3 * MINUTE);
      await h.run();
      assert.equal(await h.statusOf(silent.id), 'OFFLINE');
      assert.equal(await h.statusOf(announced.id), 'ONLINE', 'within its 4 minutes');
      assert.equal(await h.statusOf(capped.id), 'ONLINE');
      h.clock.advance(2 * MINUTE);
      await h.run();
      assert.equal(await h.statusOf(announced.id), 'OFFLINE', 'the grace ran out');
      assert.equal(await h.statusOf(capped.id), 'ONLINE', 'capped at 10 minutes, not yet');
      h.clock.advance(5 * MINUTE);
      await h.run();
      assert.equal(await h.statusOf(capped.id), 'OFFLINE');
      assert.deepEqual(
        (await h.openAlerts()).map((a) => a.rule_key),
        ['system.offline', 'system.offline', 'system.offline'],
      );
    }));
});
