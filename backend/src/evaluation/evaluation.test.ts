/**
 * The evaluation run's rules: offline/STANDBY/back online, `for` pending then
 * firing, resolving, instance globs, scoped overrides, status from the worst
 * open alert, transitions published once (event rules: event-rules.test.ts). Each test has its own database, bus
 * prefix and fake clock (evaluation-harness).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MINUTE, withHarness } from '../testing/evaluation-harness.js';

const keysOf = (alerts: { rule_key: string; instance: string }[]) =>
  alerts.map((a) => `${a.rule_key}${a.instance ? `{${a.instance}}` : ''}`).sort();

describe('offline detection', () => {
  it('marks a system OFFLINE after 2 minutes and raises system.offline; STANDBY without offline alerts; PENDING never', () =>
    withHarness(async (h) => {
      const online = await h.system();
      const standby = await h.system({ offlineAlerts: false });
      const pending = await h.system({ status: 'PENDING' });

      h.clock.advance(2 * MINUTE - 1000);
      let result = await h.run();
      assert.equal(result.health.marked_offline, 0);
      assert.equal(await h.statusOf(online.id), 'ONLINE');

      h.clock.advance(2000);
      result = await h.run();
      assert.equal(result.health.marked_offline, 2);
      assert.equal(result.alerts.triggered, 1);
      assert.equal(await h.statusOf(online.id), 'OFFLINE');
      assert.equal(await h.statusOf(standby.id), 'STANDBY');
      assert.equal(await h.statusOf(pending.id), 'PENDING');
      const [alert] = await h.openAlerts();
      assert.equal(alert.rule_key, 'system.offline');
      assert.equal(alert.system_id, online.id);
      assert.equal(alert.severity, 'CRITICAL');
      assert.match(
        alert.message,
        /^No report since \d{4}-\d\d-\d\dT[\d:.]+Z$/,
        'the exact instant, for the console to show',
      );
      assert.deepEqual(await h.openAlerts(standby.id), []);
      const cluster = result.clusters[String(online.clusterId)];
      assert.deepEqual(cluster, { systems: 1, online: 0, offline: 1, openAlerts: 1 });
      assert.ok(h.recorded.systems.some((e) => e.id === online.id));
      assert.ok(h.recorded.systems.some((e) => e.id === standby.id));

      // still offline: counted and raised once
      h.clock.advance(MINUTE);
      result = await h.run();
      assert.equal(result.health.marked_offline, 0);
      assert.equal(result.alerts.triggered, 0);

      // reporting again (ingest sets ONLINE) resolves the alert on the next run
      await h.report(online.id, [{ name: 'cpu.usage_pct', value: 10 }]);
      await h.report(standby.id, [{ name: 'cpu.usage_pct', value: 10 }]);
      result = await h.run();
      assert.equal(result.alerts.resolved, 1);
      assert.equal(await h.statusOf(online.id), 'ONLINE');
      assert.equal(await h.statusOf(standby.id), 'ONLINE');
      assert.deepEqual(await h.openAlerts(), []);
      const transitions = h.recorded.alerts.map((e) => `${e.type}:${e.alert.ruleKey}:${e.alert.systemId}`);
      assert.deepEqual(transitions, [`raised:system.offline:${online.id}`, `resolved:system.offline:${online.id}`]);
    }));

  it('switching offline alerts off turns an OFFLINE system STANDBY and resolves its alert', () =>
    withHarness(async (h) => {
      const system = await h.system();
      h.clock.advance(3 * MINUTE);
      await h.run();
      assert.equal((await h.openAlerts(system.id)).length, 1);
      await h.knex('systems').where({ id: system.id }).update({ offline_alerts: false });
      const result = await h.run();
      assert.equal(await h.statusOf(system.id), 'STANDBY');
      assert.equal(result.alerts.resolved, 1);
      assert.equal(result.health.marked_offline, 0);
    }));
});

describe('metric rules', () => {
  it('keeps a condition pending for `for`, then raises once, then resolves when it clears (published once each)', () =>
    withHarness(async (h) => {
      const system = await h.system();
      const cpu = (value: number) => h.report(system.id, [{ name: 'cpu.usage_pct', value }]);
      await cpu(91);
      assert.equal((await h.run()).alerts.triggered, 0);
      assert.equal((await h.knex('alert_pending').where({ system_id: system.id })).length, 1);
      h.clock.advance(9 * MINUTE);
      await cpu(91);
      assert.equal((await h.run()).alerts.triggered, 0);
      h.clock.advance(MINUTE);
      await cpu(91);
      let result = await h.run();
      assert.equal(result.alerts.triggered, 1);
      assert.equal(await h.statusOf(system.id), 'WARNING');
      const [alert] = await h.openAlerts(system.id);
      assert.equal(alert.rule_key, 'cpu.high');
      assert.equal(alert.value, 91);
      assert.equal(alert.message, 'CPU used is 91 % (above 85 %)');
      assert.deepEqual(await h.knex('alert_pending').where({ system_id: system.id }), []);

      h.clock.advance(MINUTE);
      await cpu(92);
      result = await h.run();
      assert.deepEqual(result.alerts, { evaluated: result.alerts.evaluated, triggered: 0, resolved: 0 });
      assert.ok(result.alerts.evaluated >= 37);

      h.clock.advance(MINUTE);
      await cpu(40);
      result = await h.run();
      assert.equal(result.alerts.resolved, 1);
      assert.equal(await h.statusOf(system.id), 'ONLINE');
      const events = h.recorded.alerts.filter((e) => e.alert.id === Number(alert.id));
      assert.deepEqual(
        events.map((e) => e.type),
        ['raised', 'resolved'],
      );
      assert.equal(events[1]?.alert.state, 'resolved');
      assert.deepEqual(Object.keys(events[0]?.alert ?? {}).sort(), [
        'acknowledged',
        'customerId',
        'id',
        'instance',
        'message',
        'resolvedAt',
        'ruleKey',
        'severity',
        'startedAt',
        'state',
        'systemId',
        'value',
      ]);
      // WARNING, then ONLINE: each status change published
      assert.equal(h.recorded.systems.filter((e) => e.id === system.id).length, 2);
    }));

  it('starts `for` over when the condition stops holding in between', () =>
    withHarness(async (h) => {
      const system = await h.system();
      const cpu = (value: number) => h.report(system.id, [{ name: 'cpu.usage_pct', value }]);
      await cpu(91);
      await h.run();
      h.clock.advance(5 * MINUTE);
      await cpu(50);
      await h.run();
      h.clock.advance(5 * MINUTE);
      await cpu(91);
      assert.equal((await h.run()).alerts.triggered, 0);
      h.clock.advance(10 * MINUTE);
      await cpu(91);
      assert.equal((await h.run()).alerts.triggered, 1);
    }));

  it('starts pending conditions over after more than an hour without runs (outage tolerance)', () =>
    withHarness(async (h) => {
      const system = await h.system();
      await h.report(system.id, [{ name: 'cpu.usage_pct', value: 91 }]);
      await h.run();
      h.clock.advance(2 * 60 * MINUTE); // the scheduler was down: nobody saw the two hours in between
      await h.report(system.id, [{ name: 'cpu.usage_pct', value: 91 }]);
      assert.equal((await h.run()).alerts.triggered, 0);
      h.clock.advance(10 * MINUTE);
      await h.report(system.id, [{ name: 'cpu.usage_pct', value: 91 }]);
      assert.equal((await h.run()).alerts.triggered, 1);
    }));

  it('judges only samples up to 5 minutes old, and resolves once the metric has stopped for 10 minutes', () =>
    withHarness(async (h) => {
      const system = await h.system();
      const stale = await h.system();
      await h.report(stale.id, [{ name: 'mem.oom_kills', value: 3 }], 6 * MINUTE);
      await h.report(system.id, [{ name: 'mem.oom_kills', value: 3 }]);
      const result = await h.run();
      assert.equal(result.alerts.triggered, 1);
      assert.deepEqual(await h.openAlerts(stale.id), []);

      const alive = () => h.report(system.id, [{ name: 'cpu.usage_pct', value: 5 }]);
      h.clock.advance(7 * MINUTE);
      await alive();
      assert.equal((await h.run()).alerts.resolved, 0); // 7 minutes old: nothing decided
      h.clock.advance(3 * MINUTE + 1000);
      await alive();
      assert.equal((await h.run()).alerts.resolved, 1); // over 10 minutes: stopped arriving
    }));

  it('matches instance globs (`*`, `?`) and keeps one alert per instance', () =>
    withHarness(async (h) => {
      await h.knex('alert_rules').insert([
        {
          key: 'disk.var',
          name: 'Var disks',
          severity: 'WARNING',
          metric: 'disk.used_pct',
          instance_glob: '/var*',
          operator: '>',
          threshold: 50,
          for_seconds: 0,
        },
        {
          key: 'disk.sdx',
          name: 'SD disks',
          severity: 'WARNING',
          metric: 'disk.io_util_pct',
          instance_glob: 'sd?',
          operator: '>',
          threshold: 50,
          for_seconds: 0,
        },
      ]);
      const system = await h.system();
      await h.report(system.id, [
        { name: 'disk.used_pct', instance: '/var', value: 60 },
        { name: 'disk.used_pct', instance: '/var/log', value: 60 },
        { name: 'disk.used_pct', instance: '/home', value: 60 },
        { name: 'disk.used_pct', instance: '/', value: 60 },
        { name: 'disk.io_util_pct', instance: 'sda', value: 60 },
        { name: 'disk.io_util_pct', instance: 'sda1', value: 60 },
        { name: 'disk.io_util_pct', instance: 'nvme0n1', value: 60 },
      ]);
      await h.run();
      assert.deepEqual(keysOf(await h.openAlerts(system.id)), [
        'disk.sdx{sda}',
        'disk.var{/var/log}',
        'disk.var{/var}',
      ]);
      // narrowing the glob resolves what it no longer matches
      await h.knex('alert_rules').where({ key: 'disk.var' }).update({ instance_glob: '/var' });
      h.clock.advance(MINUTE);
      await h.report(system.id, [{ name: 'disk.used_pct', instance: '/var/log', value: 60 }]);
      assert.equal((await h.run()).alerts.resolved, 1);
      assert.deepEqual(keysOf(await h.openAlerts(system.id)), ['disk.sdx{sda}', 'disk.var{/var}']);
    }));

  it('lets a scoped rule with the same key override the global one (most specific wins; disabled switches it off there)', () =>
    withHarness(async (h) => {
      const customerA = await h.customer();
      const a1 = await h.system({ customerId: customerA });
      const a2 = await h.system({ customerId: customerA });
      const b1 = await h.system();
      const base = { name: 'CPU usage high', severity: 'WARNING', metric: 'cpu.usage_pct', operator: '>' };
      await h.knex('alert_rules').insert([
        // customer A: a lower threshold, at once
        { ...base, key: 'cpu.high', threshold: 50, for_seconds: 0, scope_type: 'customer', scope_id: customerA },
        // a2 alone: cpu.critical off
        {
          ...base,
          key: 'cpu.critical',
          severity: 'CRITICAL',
          threshold: 95,
          for_seconds: 600,
          enabled: false,
          scope_type: 'system',
          scope_id: a2.id,
        },
      ]);
      const everyone = (value: number) =>
        h.reportMany([a1, a2, b1].map((s) => ({ systemId: s.id, samples: [{ name: 'cpu.usage_pct', value }] })));
      await everyone(60);
      await h.run();
      assert.deepEqual(keysOf(await h.openAlerts(a1.id)), ['cpu.high']);
      assert.deepEqual(keysOf(await h.openAlerts(a2.id)), ['cpu.high']);
      assert.deepEqual(await h.openAlerts(b1.id), []);

      for (let i = 0; i <= 10; i++) {
        h.clock.advance(MINUTE);
        await everyone(99);
        await h.run();
      }
      assert.deepEqual(keysOf(await h.openAlerts(a1.id)), ['cpu.critical', 'cpu.high']);
      assert.deepEqual(keysOf(await h.openAlerts(a2.id)), ['cpu.high']);
      assert.deepEqual(keysOf(await h.openAlerts(b1.id)), ['cpu.critical', 'cpu.high']);
      assert.equal(await h.statusOf(a1.id), 'CRITICAL');
      assert.equal(await h.statusOf(a2.id), 'WARNING');

      // disabling the override for a1 too resolves its open cpu.critical alert
      await h.knex('alert_rules').insert({
        ...base,
        key: 'cpu.critical',
        severity: 'CRITICAL',
        threshold: 95,
        for_seconds: 600,
        enabled: false,
        scope_type: 'cluster',
        scope_id: a1.clusterId,
      });
      h.clock.advance(MINUTE);
      await everyone(99);
      const result = await h.run();
      assert.equal(result.alerts.resolved, 1);
      assert.equal(await h.statusOf(a1.id), 'WARNING');
    }));

  it('sets WARNING/CRITICAL from the worst open alert and leaves OFFLINE alone', () =>
    withHarness(async (h) => {
      const system = await h.system();
      await h.report(system.id, [
        { name: 'mem.oom_kills', value: 1 },
        { name: 'raid.degraded', instance: 'md0', value: 1 },
        { name: 'cert.days_left', instance: 'x', value: 10 },
      ]);
      await h.run();
      assert.equal(await h.statusOf(system.id), 'CRITICAL');
      h.clock.advance(MINUTE);
      await h.report(system.id, [{ name: 'raid.degraded', instance: 'md0', value: 0 }]);
      await h.run();
      assert.equal(await h.statusOf(system.id), 'WARNING');
      // silent: OFFLINE wins over its open WARNING alerts
      h.clock.advance(3 * MINUTE);
      await h.run();
      assert.equal(await h.statusOf(system.id), 'OFFLINE');
      assert.equal(await h.statusOf(system.id), 'OFFLINE');
      h.clock.advance(MINUTE);
      await h.report(system.id, [
        { name: 'mem.oom_kills', value: 0 },
        { name: 'cert.days_left', instance: 'x', value: 100 },
      ]);
      await h.run();
      assert.equal(await h.statusOf(system.id), 'ONLINE');
    }));
});
