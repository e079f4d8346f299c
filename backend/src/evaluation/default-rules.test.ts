/**
 * Table-driven over ALL default rules (docs/rules.md "Default rules": 44 alert rules + the
 * event rule): each raises on its trigger data once its `for` has passed (not
 * one run earlier) and a system reporting normal values for the whole catalogue
 * raises nothing, ever — over 7 simulated days of once-a-minute-ish runs. The two rules seeded
 * switched off (container CPU and memory of the limit) raise nothing until an override for a
 * container glob turns them on, and then only for the containers it names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_ALERT_RULES, DEFAULT_EVENT_RULES } from '../../../db/default-rules.js';
import { MINUTE, startEvaluationHarness, type EvaluationHarness, type Sample } from '../testing/evaluation-harness.js';

interface Case {
  key: string;
  metric: string;
  instance?: string;
  trigger: number;
  normal: number;
}

const CASES: Case[] = [
  { key: 'cpu.high', metric: 'cpu.usage_pct', trigger: 90, normal: 40 },
  { key: 'cpu.critical', metric: 'cpu.usage_pct', trigger: 97, normal: 40 },
  { key: 'cpu.iowait', metric: 'cpu.iowait_pct', trigger: 25, normal: 2 },
  { key: 'cpu.steal', metric: 'cpu.steal_pct', trigger: 12, normal: 1 },
  { key: 'load.high', metric: 'load.per_core_5', trigger: 3, normal: 0.3 },
  { key: 'load.critical', metric: 'load.per_core_5', trigger: 5, normal: 0.3 },
  { key: 'mem.high', metric: 'mem.used_pct', trigger: 93, normal: 50 },
  { key: 'mem.critical', metric: 'mem.used_pct', trigger: 98, normal: 50 },
  { key: 'mem.oom', metric: 'mem.oom_kills', trigger: 1, normal: 0 },
  { key: 'swap.high', metric: 'swap.used_pct', trigger: 60, normal: 5 },
  { key: 'swap.critical', metric: 'swap.used_pct', trigger: 95, normal: 5 },
  { key: 'disk.high', metric: 'disk.used_pct', instance: '/var', trigger: 88, normal: 40 },
  { key: 'disk.critical', metric: 'disk.used_pct', instance: '/var', trigger: 97, normal: 40 },
  { key: 'inodes.high', metric: 'disk.inodes_used_pct', instance: '/', trigger: 88, normal: 10 },
  { key: 'inodes.critical', metric: 'disk.inodes_used_pct', instance: '/', trigger: 97, normal: 10 },
  { key: 'disk.readonly', metric: 'disk.readonly', instance: '/home', trigger: 1, normal: 0 },
  { key: 'disk.io', metric: 'disk.io_util_pct', instance: 'sda', trigger: 95, normal: 10 },
  { key: 'disk.smart', metric: 'disk.smart_ok', instance: 'sdb', trigger: 0, normal: 1 },
  { key: 'raid.degraded', metric: 'raid.degraded', instance: 'md0', trigger: 1, normal: 0 },
  { key: 'net.errors', metric: 'net.errors_ps', instance: 'eth0', trigger: 20, normal: 0 },
  { key: 'net.drops', metric: 'net.drops_ps', instance: 'eth0', trigger: 150, normal: 1 },
  { key: 'net.down', metric: 'net.up', instance: 'eth1', trigger: 0, normal: 1 },
  { key: 'conntrack.high', metric: 'conntrack.used_pct', trigger: 95, normal: 10 },
  { key: 'services.failed', metric: 'services.failed', trigger: 2, normal: 0 },
  { key: 'service.down', metric: 'service.active', instance: 'nginx.service', trigger: 0, normal: 1 },
  { key: 'proc.zombies', metric: 'proc.zombies', trigger: 30, normal: 0 },
  { key: 'fd.high', metric: 'fd.used_pct', trigger: 95, normal: 10 },
  // absolute: an offset of −3000 ms is as bad as +3000 ms
  { key: 'clock.skew', metric: 'time.offset_ms', trigger: -3000, normal: 120 },
  { key: 'updates.security', metric: 'updates.security', trigger: 3, normal: 0 },
  { key: 'reboot.required', metric: 'system.reboot_required', trigger: 1, normal: 0 },
  { key: 'temp.high', metric: 'temp.max_c', instance: 'cpu', trigger: 90, normal: 50 },
  { key: 'temp.critical', metric: 'temp.max_c', instance: 'cpu', trigger: 99, normal: 50 },
  { key: 'cert.expiring', metric: 'cert.days_left', instance: 'www.example.com', trigger: 10, normal: 60 },
  { key: 'cert.critical', metric: 'cert.days_left', instance: 'www.example.com', trigger: 1, normal: 60 },
  { key: 'backup.stale', metric: 'backup.age_h', instance: 'nightly', trigger: 30, normal: 5 },
  { key: 'container.exited', metric: 'container.exited_unexpectedly', instance: 'web', trigger: 1, normal: 0 },
  { key: 'container.unhealthy', metric: 'container.healthy', instance: 'web', trigger: 0, normal: 1 },
  { key: 'container.crash_loop', metric: 'container.restarts_recent', instance: 'web', trigger: 4, normal: 0 },
  { key: 'process.not_running', metric: 'processes.count', instance: 'nginx', trigger: 0, normal: 3 },
];
const SWITCHED_OFF = ['container.cpu', 'container.memory'];

const forOf = (key: string) => (DEFAULT_ALERT_RULES.find((r) => r.key === key)?.forSeconds ?? NaN) * 1000;

describe('the default rules, table-driven', () => {
  let h: EvaluationHarness;
  before(async () => {
    h = await startEvaluationHarness();
  });
  after(async () => {
    await h.close();
  });

  it('covers all 44 default alert rules and the default event rule', () => {
    assert.equal(DEFAULT_ALERT_RULES.length, 44);
    assert.equal(DEFAULT_EVENT_RULES.length, 1);
    // offline: evaluation.test.ts; the switched-off ones: the last test here; the forecasts read
    // history: forecasts.test.ts
    const covered = new Set([
      ...CASES.map((c) => c.key),
      'system.offline',
      'disk.forecast',
      'disk.forecast_critical',
      ...SWITCHED_OFF,
    ]);
    assert.deepEqual([...covered].sort(), DEFAULT_ALERT_RULES.map((r) => r.key).sort());
    for (const c of CASES) assert.equal(DEFAULT_ALERT_RULES.find((r) => r.key === c.key)?.metric, c.metric, c.key);
  });

  it('raises each metric rule on its trigger data exactly when its `for` has passed, and never on normal data', async () => {
    const healthy = await h.system({ name: 'healthy' });
    const triggered = new Map<string, number>();
    for (const c of CASES) triggered.set(c.key, (await h.system({ name: `trigger-${c.key}` })).id);
    const bySeries = new Map<string, Sample>();
    for (const c of CASES) {
      const sample = { name: c.metric, ...(c.instance ? { instance: c.instance } : {}), value: c.normal };
      bySeries.set(`${c.metric}{${c.instance ?? ''}}`, sample);
    }
    const normalSamples = [...bySeries.values()];
    // the simulator's catalogue beyond what the rules read, also on the healthy host
    normalSamples.push({ name: 'load.1', value: 0.5 }, { name: 'net.rx_bps', instance: 'eth0', value: 1e6 });

    // check points: each distinct `for` and one minute before it; hourly runs through the 7-day rules
    const fors = [...new Set(CASES.map((c) => forOf(c.key)))];
    const points = new Set<number>([0]);
    for (const f of fors) if (f > 0) points.add(f - MINUTE).add(f);
    for (let t = 60 * MINUTE; t < 7 * 24 * 60 * MINUTE; t += 60 * MINUTE) points.add(t);
    const start = h.clock.now().getTime();
    const firstRaised = new Map<string, number>();
    for (const offset of [...points].sort((a, b) => a - b)) {
      h.clock.set(new Date(start + offset));
      await h.reportMany([
        { systemId: healthy.id, samples: normalSamples },
        ...CASES.map((c) => ({
          systemId: triggered.get(c.key) as number,
          samples: [{ name: c.metric, ...(c.instance ? { instance: c.instance } : {}), value: c.trigger }],
        })),
      ]);
      await h.run();
      const open = await h.openAlerts();
      for (const alert of open) {
        assert.notEqual(alert.system_id, healthy.id, `the healthy system raised ${alert.rule_key}`);
        const c = CASES.find((x) => triggered.get(x.key) === alert.system_id);
        if (c && c.key === alert.rule_key && !firstRaised.has(c.key)) firstRaised.set(c.key, offset);
      }
    }
    for (const c of CASES) {
      assert.equal(firstRaised.get(c.key), forOf(c.key), `${c.key}: raised at ${firstRaised.get(c.key)} ms`);
    }
    const severities = await h.knex('alerts').select('rule_key', 'severity', 'instance');
    for (const c of CASES) {
      const alert = severities.find((a) => a.rule_key === c.key && a.instance === (c.instance ?? ''));
      assert.equal(alert?.severity, DEFAULT_ALERT_RULES.find((r) => r.key === c.key)?.severity, c.key);
    }
  });

  it('raises container CPU and memory of the limit only where an override for a container glob turns them on', async () => {
    const host = await h.system({ name: 'containers' });
    const samples = [
      { name: 'container.cpu_pct', instance: 'db-1', value: 97 },
      { name: 'container.cpu_pct', instance: 'web', value: 99 },
      { name: 'container.mem_pct', instance: 'db-1', value: 95 },
    ];
    const start = h.clock.now().getTime();
    const runAt = async (minutes: number) => {
      h.clock.set(new Date(start + minutes * MINUTE));
      await h.reportMany([{ systemId: host.id, samples }]);
      await h.run();
      return (await h.openAlerts(host.id)).map((a) => `${a.rule_key} ${a.instance}`).sort();
    };
    assert.deepEqual(await runAt(0), []);
    assert.deepEqual(await runAt(11), [], 'switched off by default: nothing after their `for`');
    const global = await h.knex('alert_rules').where({ key: 'container.cpu' }).whereNull('scope_type').first();
    for (const key of SWITCHED_OFF) {
      const rule = await h.knex('alert_rules').where({ key }).whereNull('scope_type').first();
      const { id: _id, created_at: _c, updated_at: _u, ...fields } = rule;
      await h.knex('alert_rules').insert({
        ...fields,
        enabled: true,
        instance_glob: 'db-*',
        scope_type: 'system',
        scope_id: host.id,
      });
    }
    assert.equal(global.enabled, false);
    await runAt(12);
    assert.deepEqual(await runAt(23), ['container.cpu db-1', 'container.memory db-1'], 'db-* only, not web');
  });
});
