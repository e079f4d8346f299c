/**
 * Suppression (docs/rules.md "Suppression: maintenance windows and inactive customers"): a maintenance window (one-off or weekly in the
 * customer's time zone, across a DST change) or an inactive customer: nothing
 * raised, nothing mailed (resolve notices included), nothing sent later to catch
 * up; open alerts stay open and resolve normally.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MINUTE, withHarness } from '../testing/evaluation-harness.js';

const OOM = (value: number) => [{ name: 'mem.oom_kills', value }];

describe('suppression', () => {
  it('a one-off window (system and cluster scope) suppresses raising and mail, resolves silently, sends nothing later', () =>
    withHarness(async (h) => {
      const admin = await h.account({ role: 'ADMIN' });
      const customerId = await h.customer();
      const clusterId = await h.cluster(customerId);
      const first = await h.system({ customerId, clusterId });
      const second = await h.system({ customerId, clusterId });
      const outside = await h.system({ customerId, clusterId: null });

      await h.report(first.id, OOM(1));
      assert.equal((await h.run()).alerts.triggered, 1);
      assert.equal((await h.sink.nthMail(1)).to[0], admin.email);

      const now = h.clock.now().getTime();
      await h.knex('maintenance_windows').insert([
        {
          customer_id: customerId,
          scope_type: 'system',
          scope_id: first.id,
          name: 'patching',
          kind: 'once',
          starts_at: new Date(now),
          ends_at: new Date(now + 30 * MINUTE),
        },
        {
          customer_id: customerId,
          scope_type: 'cluster',
          scope_id: clusterId,
          name: 'rack move',
          kind: 'once',
          starts_at: new Date(now),
          ends_at: new Date(now + 30 * MINUTE),
        },
      ]);
      h.clock.advance(MINUTE);
      await h.reportMany([
        { systemId: first.id, samples: OOM(0) }, // clears: resolves, silently
        { systemId: second.id, samples: OOM(2) }, // covered by the cluster's window
        { systemId: outside.id, samples: OOM(2) }, // not covered
      ]);
      const result = await h.run();
      assert.equal(result.alerts.resolved, 1);
      assert.equal(result.alerts.triggered, 1);
      assert.deepEqual(await h.openAlerts(second.id), []);
      assert.equal((await h.openAlerts(outside.id)).length, 1);
      await h.sink.nthMail(2);
      assert.equal(h.sink.mails.length, 2, 'only the raise outside the window was mailed');
      assert.match(h.sink.mails[1]?.text ?? '', new RegExp(`/alerts/${(await h.openAlerts(outside.id))[0].id}`));

      // after the window: what still holds is raised now (the current state); the silent resolve is never mailed
      h.clock.advance(30 * MINUTE);
      await h.reportMany([
        { systemId: first.id, samples: OOM(0) },
        { systemId: second.id, samples: OOM(2) },
        { systemId: outside.id, samples: OOM(2) },
      ]);
      assert.equal((await h.run()).alerts.triggered, 1);
      await h.sink.nthMail(3);
      h.clock.advance(MINUTE);
      await h.reportMany([
        { systemId: second.id, samples: OOM(2) },
        { systemId: outside.id, samples: OOM(2) },
        { systemId: first.id, samples: OOM(0) },
      ]);
      await h.run();
      assert.equal(h.sink.mails.length, 3);
      assert.ok(!h.sink.mails.some((m) => /^Subject: \[Argus\] Resolved/m.test(m.headers)));
      assert.equal(
        (await h.knex('alert_notifications').where({ kind: 'resolved' })).length,
        0,
        'no resolve notice was queued during the window',
      );
    }));

  it('a weekly window holds at 02:00 local time in the customer zone across the spring DST change', () =>
    withHarness(async (h) => {
      const customerId = await h.customer({ timeZone: 'Europe/Berlin' });
      const system = await h.system({ customerId });
      await h.knex('maintenance_windows').insert({
        customer_id: customerId,
        scope_type: 'customer',
        scope_id: customerId,
        name: 'Sunday backups',
        kind: 'weekly',
        weekdays: [0],
        start_time: '02:00',
        duration_minutes: 60,
      });
      const runAt = async (iso: string) => {
        h.clock.set(new Date(iso));
        await h.report(system.id, OOM(1));
        return (await h.run()).alerts.triggered;
      };
      assert.equal(await runAt('2026-03-22T01:30:00Z'), 0); // 02:30 CET: inside
      assert.equal(await runAt('2026-04-05T00:30:00Z'), 0); // 02:30 CEST: inside, one hour earlier in UTC
      assert.equal(await runAt('2026-04-05T01:30:00Z'), 1); // 03:30 CEST: after the window
    }));

  it('an inactive customer raises and mails nothing; reactivated, the current state raises', () =>
    withHarness(async (h) => {
      await h.account({ role: 'ADMIN' });
      const customerId = await h.customer({ active: false });
      const system = await h.system({ customerId });
      await h.report(system.id, OOM(1));
      assert.equal((await h.run()).alerts.triggered, 0);
      h.clock.advance(3 * MINUTE);
      const result = await h.run();
      assert.equal(result.alerts.triggered, 0, 'not even system.offline');
      assert.equal(result.health.marked_offline, 1, 'the status still follows the facts');
      assert.equal(h.sink.mails.length, 0);
      assert.equal((await h.knex('alert_notifications')).length, 0);

      await h.knex('customers').where({ id: customerId }).update({ active: true });
      h.clock.advance(MINUTE);
      await h.report(system.id, OOM(1));
      assert.equal((await h.run()).alerts.triggered, 1);
      assert.match((await h.sink.nthMail(1)).headers, /Out-of-memory kills/);
    }));
});
