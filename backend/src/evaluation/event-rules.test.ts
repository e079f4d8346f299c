/**
 * The evaluation run's event rules: a reboot seen in uptime, agent events by type, message pattern
 * and minimum severity, holds that more events extend, and events that arrive after their hold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MINUTE, withHarness } from '../testing/evaluation-harness.js';

describe('event rules', () => {
  it('raises system.rebooted when uptime.s goes down and resolves it after its 30-minute hold', () =>
    withHarness(async (h) => {
      const system = await h.system();
      await h.report(system.id, [{ name: 'uptime.s', value: 100_000 }]);
      assert.equal((await h.run()).alerts.triggered, 0);
      h.clock.advance(MINUTE);
      await h.report(system.id, [{ name: 'uptime.s', value: 100_060 }]);
      assert.equal((await h.run()).alerts.triggered, 0);
      h.clock.advance(MINUTE);
      await h.report(system.id, [{ name: 'uptime.s', value: 20 }]);
      assert.equal((await h.run()).alerts.triggered, 1);
      const [alert] = await h.openAlerts(system.id);
      assert.equal(alert.rule_key, 'system.rebooted');
      assert.equal(alert.severity, 'INFO');
      assert.equal(alert.value, 20);
      assert.equal(alert.message, 'Rebooted after 1 d 3 h up (up again for 20 s)');
      assert.equal(await h.statusOf(system.id), 'ONLINE'); // INFO does not change the status
      for (let minutes = 1; minutes <= 29; minutes += 7) {
        h.clock.advance(7 * MINUTE);
        await h.report(system.id, [{ name: 'uptime.s', value: 20 + minutes * 60 }]);
        assert.equal((await h.run()).alerts.resolved, 0);
      }
      h.clock.advance(2 * MINUTE);
      await h.report(system.id, [{ name: 'uptime.s', value: 20 + 31 * 60 }]);
      assert.equal((await h.run()).alerts.resolved, 1);
    }));

  it('raises on an agent event of the type, its message pattern and minimum severity; more events extend the hold', () =>
    withHarness(async (h) => {
      await h.knex('event_rules').insert({
        key: 'nginx.failed',
        name: 'nginx failed',
        severity: 'WARNING',
        event_type: 'service.failed',
        message_pattern: 'nginx*failed',
        min_event_severity: 'WARNING',
        hold_seconds: 600,
      });
      const system = await h.system();
      await h.agentEvent(system.id, { type: 'service.failed', severity: 'INFO', message: 'nginx.service failed' });
      await h.agentEvent(system.id, { type: 'service.failed', severity: 'CRITICAL', message: 'sshd.service failed' });
      await h.agentEvent(system.id, { type: 'service.started', severity: 'CRITICAL', message: 'nginx failed' });
      assert.equal((await h.run()).alerts.triggered, 0);
      await h.agentEvent(system.id, {
        type: 'service.failed',
        severity: 'WARNING',
        message: 'NGINX.service has failed',
      });
      assert.equal((await h.run()).alerts.triggered, 1);
      assert.equal(await h.statusOf(system.id), 'WARNING');
      const [alert] = await h.openAlerts(system.id);
      assert.equal(alert.message, 'nginx failed: NGINX.service has failed');
      // the same event is evaluated once
      assert.equal((await h.run()).alerts.triggered, 0);
      h.clock.advance(8 * MINUTE);
      await h.report(system.id, []);
      await h.agentEvent(system.id, { type: 'service.failed', severity: 'CRITICAL', message: 'nginx failed again' });
      assert.equal((await h.run()).alerts.triggered, 0);
      h.clock.advance(8 * MINUTE);
      await h.report(system.id, []);
      assert.equal((await h.run()).alerts.resolved, 0); // held until 10 min after the second event
      h.clock.advance(3 * MINUTE);
      await h.report(system.id, []);
      assert.equal((await h.run()).alerts.resolved, 1);
      // the system.reboot event type raises the default rule too
      await h.agentEvent(system.id, { type: 'system.reboot', message: 'kernel update' });
      assert.equal((await h.run()).alerts.triggered, 1);
      assert.equal((await h.openAlerts(system.id))[0]?.rule_key, 'system.rebooted');
    }));

  it('ignores an event whose hold ended before it arrived (a buffer delivered after an outage)', () =>
    withHarness(async (h) => {
      const system = await h.system();
      await h.agentEvent(system.id, { type: 'system.reboot', ageMs: 45 * MINUTE });
      assert.equal((await h.run()).alerts.triggered, 0);
    }));
});
