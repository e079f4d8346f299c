/**
 * Forecast rules in the evaluation run, on histories written with a fake clock: the seeded
 * `disk.forecast` (reaches 100 % within 72 h, WARNING) and `disk.forecast_critical` (within 24 h,
 * CRITICAL) over the last 24 hours of hourly points. A steady fill fires each at its horizon, a
 * cron-like sawtooth never fires, a fresh system has too little data, a disk cleaned up resolves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOUR, writeDiskHistory } from '../testing/disk-history.js';
import { withHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';

const forecastAlerts = async (h: EvaluationHarness, systemId: number) =>
  (await h.openAlerts(systemId)).filter((a: { rule_kind: string }) => a.rule_kind === 'forecast');

/** Moves the clock on by `hours`, writing the history of those hours, and reports the newest value. */
async function live(
  h: EvaluationHarness,
  systemId: number,
  instance: string,
  hours: number,
  valueAt: (hoursSinceStart: number) => number,
  start: Date,
) {
  const from = h.clock.now();
  h.clock.advance(hours * HOUR);
  const to = h.clock.now();
  await writeDiskHistory(h.knex, systemId, instance, from, to, (x) =>
    valueAt(x + (from.getTime() - start.getTime()) / HOUR),
  );
  await h.report(systemId, [
    { name: 'disk.used_pct', instance, value: valueAt((to.getTime() - start.getTime()) / HOUR) },
  ]);
}

describe('forecast rules', () => {
  it('a steady fill warns three days ahead, in words and in the customer time zone, and turns critical a day ahead', () =>
    withHarness(async (h) => {
      // 2026-03-02 is a Monday; Berlin is an hour ahead of UTC in March
      const customerId = await h.customer({ timeZone: 'Europe/Berlin' });
      const system = await h.system({ customerId });
      const now = h.clock.now();
      const start = new Date(now.getTime() - 30 * HOUR);
      const fill = (hours: number) => 20 + hours; // one point an hour: 50 % now, 100 % in about 50 h
      await writeDiskHistory(h.knex, system.id, '/data', start, now, fill);
      await h.report(system.id, [{ name: 'disk.used_pct', instance: '/data', value: 50 }]);

      const result = await h.run();
      const [warning, ...others] = await forecastAlerts(h, system.id);
      assert.equal(others.length, 0, 'not critical: 100 % is more than a day away');
      assert.equal(warning.rule_key, 'disk.forecast');
      assert.equal(warning.severity, 'WARNING');
      assert.equal(warning.instance, '/data');
      // the hourly means lie on the line 7.5 minutes behind: 100 % at Wed 14:07 UTC, 15:07 in Berlin
      assert.equal(warning.message, 'Disk used on /data reaches 100 % in 2 d 2 h, around Wed 15:00');
      assert.equal(result.alerts.triggered, 1);
      assert.equal(await h.statusOf(system.id), 'WARNING');
      assert.ok(h.recorded.alerts.some((e) => e.type === 'raised' && e.alert.ruleKey === 'disk.forecast'));

      // 25 hours on: about 25 h left, still only the warning (raised once)
      await live(h, system.id, '/data', 25, fill, start);
      assert.equal((await h.run()).alerts.triggered, 0);
      assert.deepEqual(
        (await forecastAlerts(h, system.id)).map((a: { rule_key: string }) => a.rule_key),
        ['disk.forecast'],
      );

      // two more hours: under 24 h left, the critical forecast fires
      await live(h, system.id, '/data', 2, fill, start);
      await h.run();
      const critical = (await forecastAlerts(h, system.id)).find(
        (a: { rule_key: string }) => a.rule_key === 'disk.forecast_critical',
      );
      assert.ok(critical, 'critical within 24 h');
      assert.equal(critical.severity, 'CRITICAL');
      assert.match(critical.message, /^Disk used on \/data reaches 100 % in 23 h \d+ min, around Wed 1[45]:\d0$/);
      assert.equal(await h.statusOf(system.id), 'CRITICAL');
    }));

  it('a cron-like sawtooth (fills for hours, then rotated) never fires, while its last hours climb steeply', () =>
    withHarness(async (h) => {
      const system = await h.system();
      const now = h.clock.now();
      const start = new Date(now.getTime() - 30 * HOUR);
      // +6 % an hour for 5 hours, then the log is rotated: 45 … 75 % every 6 hours
      const sawtooth = (hours: number) => 45 + 6 * (hours % 6);
      await writeDiskHistory(h.knex, system.id, '/var', start, now, sawtooth);
      for (let hour = 0; hour < 8; hour++) {
        await live(h, system.id, '/var', 1, sawtooth, start);
        await h.run();
        assert.deepEqual(await forecastAlerts(h, system.id), [], `hour ${hour}: no forecast alert`);
      }
      const [line] = await h.knex('forecast_fits').where({ system_id: system.id });
      assert.ok(line, 'the line was fitted');
      assert.ok(line.buckets >= 24, 'over the whole window');
    }));

  it('a fresh system filling fast has too little data for a forecast', () =>
    withHarness(async (h) => {
      const system = await h.system();
      const now = h.clock.now();
      const start = new Date(now.getTime() - 6 * HOUR);
      // 5 % an hour: 100 % in 4 hours, but only 6 of the 24 hours hold data
      const fill = (hours: number) => 50 + 5 * hours;
      await writeDiskHistory(h.knex, system.id, '/', start, now, fill);
      await h.report(system.id, [{ name: 'disk.used_pct', instance: '/', value: 80 }]);
      await h.run();
      assert.deepEqual(await forecastAlerts(h, system.id), []);
      const [line] = await h.knex('forecast_fits').where({ system_id: system.id });
      assert.equal(line.buckets, 6);
      assert.ok(line.slope_per_h > 4, 'the trend is there, the data is not enough');
    }));

  it('a disk cleaned up resolves its forecast once the projection moves past the horizon', () =>
    withHarness(async (h) => {
      const system = await h.system();
      const now = h.clock.now();
      const start = new Date(now.getTime() - 30 * HOUR);
      const fill = (hours: number) => 20 + hours;
      await writeDiskHistory(h.knex, system.id, '/data', start, now, fill);
      await h.report(system.id, [{ name: 'disk.used_pct', instance: '/data', value: 50 }]);
      await h.run();
      assert.equal((await forecastAlerts(h, system.id)).length, 1);

      // within the hour nothing changes: the line is refitted once a new hour is complete
      const cleaned = (hours: number) => (hours < 30 ? fill(hours) : 20);
      await live(h, system.id, '/data', 0.5, cleaned, start);
      await h.run();
      assert.equal((await forecastAlerts(h, system.id)).length, 1);

      await live(h, system.id, '/data', 1, cleaned, start);
      const result = await h.run();
      assert.deepEqual(await forecastAlerts(h, system.id), []);
      assert.equal(result.alerts.resolved, 1);
      const [resolved] = await h.knex('alerts').where({ system_id: system.id, rule_key: 'disk.forecast' });
      assert.equal(resolved.state, 'resolved');
      assert.equal(await h.statusOf(system.id), 'ONLINE');
    }));

  it('follows a changed rule at the next run of the same hour, and a system fitted for the first time mid-hour', () =>
    withHarness(async (h) => {
      const system = await h.system();
      const now = h.clock.now();
      const start = new Date(now.getTime() - 30 * HOUR);
      const fill = (hours: number) => 20 + hours; // 100 % in about 50 h
      await writeDiskHistory(h.knex, system.id, '/data', start, now, fill);
      await h.report(system.id, [{ name: 'disk.used_pct', instance: '/data', value: 50 }]);
      await h.run();
      assert.equal((await forecastAlerts(h, system.id)).length, 1, 'within 72 h');

      // the lines that may fire are kept between runs: a shorter horizon must still count at once
      await h
        .knex('alert_rules')
        .where({ key: 'disk.forecast' })
        .update({ horizon_seconds: 48 * 3600 });
      h.clock.advance(60_000);
      const shorter = await h.run();
      assert.equal(shorter.alerts.resolved, 1, 'beyond 48 h: resolved in the same hour');

      // another system, fitted for the first time in a later run of the hour, fires in that run
      const other = await h.system();
      await writeDiskHistory(h.knex, other.id, '/', start, h.clock.now(), (hours) => 60 + hours);
      await h.report(other.id, [{ name: 'disk.used_pct', instance: '/', value: 90 }]);
      h.clock.advance(60_000);
      await h.run();
      assert.deepEqual((await forecastAlerts(h, other.id)).map((a: { rule_key: string }) => a.rule_key).sort(), [
        'disk.forecast',
        'disk.forecast_critical',
      ]);
    }));
});
