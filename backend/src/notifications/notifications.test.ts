/**
 * Alert e-mails (docs/rules.md "Notifications"): to every active account that may
 * see the system and whose minimum severity allows it, on raise and on resolve,
 * with the link from AUTH_URL; a failed send is retried by later runs at most 3
 * times and never fails a run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTH_URL, MINUTE, withHarness } from '../testing/evaluation-harness.js';
import { MAX_ATTEMPTS } from './service.js';
import { zonedStamp } from '../../../contracts/zoned-time.js';

describe('alert e-mails', () => {
  it('mails raise and resolve to the accounts that may see the system and want that severity, with the link', () =>
    withHarness(async (h) => {
      const customerId = await h.customer();
      await h.knex('customers').where({ id: customerId }).update({ time_zone: 'Europe/Berlin' });
      const other = await h.customer();
      const admin = await h.account({ role: 'ADMIN' });
      const operator = await h.account({ role: 'OPERATOR', customerIds: [customerId] });
      await h.account({ role: 'OPERATOR', customerIds: [other] }); // may not see it
      const viewer = await h.account({ role: 'VIEWER', customerIds: [customerId] });
      await h.knex('users').where({ id: viewer.id }).update({ notify_min_severity: 'CRITICAL' }); // wants CRITICAL only
      await h.account({ role: 'ADMIN', disabled: true });
      const mailOff = await h.account({ role: 'ADMIN' });
      await h.knex('users').where({ id: mailOff.id }).update({ notify_min_severity: 'NONE' }); // e-mails off
      const infoViewer = await h.account({ role: 'VIEWER', customerIds: [customerId] });
      await h.knex('users').where({ id: infoViewer.id }).update({ notify_min_severity: 'INFO' });

      const system = await h.system({ customerId, name: 'web-01' });
      await h.report(system.id, [{ name: 'disk.used_pct', instance: '/var', value: 91.25 }]);
      await h.run();
      h.clock.advance(5 * MINUTE);
      await h.report(system.id, [{ name: 'disk.used_pct', instance: '/var', value: 91.25 }]);
      await h.run();
      const [alert] = await h.openAlerts(system.id);
      assert.equal(alert.rule_key, 'disk.high');
      await h.sink.nthMail(3);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(
        h.sink.mails.flatMap((m) => m.to).sort(),
        [admin.email, infoViewer.email, operator.email].sort(),
      );

      const mail = h.sink.mails[0];
      assert.ok(mail);
      assert.match(mail.headers, /^Subject: \[Argus\] WARNING: Disk usage high \[\/var\] on web-01$/m);
      for (const expected of [
        'System:   web-01 (web-01.example.net)',
        'Rule:     Disk usage high (disk.high)',
        'Instance: /var',
        'Value:    91.25',
        'Message:  Disk used on /var is 91.3 % (above 85 %)',
        `Raised:   ${zonedStamp(new Date(alert.started_at).getTime(), 'Europe/Berlin')}`,
        `Open it in Argus: ${AUTH_URL}/alerts/${alert.id}`,
      ]) {
        assert.ok(mail.text.includes(expected), `missing "${expected}" in:\n${mail.text}`);
      }

      h.clock.advance(MINUTE);
      await h.report(system.id, [{ name: 'disk.used_pct', instance: '/var', value: 40 }]);
      await h.run();
      const resolved = await h.sink.nthMail(6);
      assert.match(resolved.headers, /^Subject: \[Argus\] Resolved: Disk usage high \[\/var\] on web-01$/m);
      assert.ok(resolved.text.includes('Resolved: '));
      assert.ok(resolved.text.includes(`${AUTH_URL}/alerts/${alert.id}`));
      const rows = await h.knex('alert_notifications').select('status');
      assert.equal(rows.length, 6);
      assert.ok(rows.every((r) => r.status === 'sent'));
    }));

  it('retries a failed send on the next runs, at most 3 times, and never fails a run', () =>
    withHarness(async (h) => {
      await h.account({ role: 'ADMIN' });
      await h.setMail({ enabled: true, port: await h.deadSmtpPort() });
      const system = await h.system();
      await h.report(system.id, [{ name: 'mem.oom_kills', value: 1 }]);
      const attempts: number[] = [];
      for (let run = 1; run <= MAX_ATTEMPTS + 2; run++) {
        const result = await h.run();
        if (run === 1) assert.equal(result.alerts.triggered, 1);
        const [row] = await h.knex('alert_notifications').select('*');
        attempts.push(row.attempts);
        h.clock.advance(MINUTE);
        await h.report(system.id, [{ name: 'mem.oom_kills', value: 1 }]);
      }
      assert.equal(MAX_ATTEMPTS, 4, 'the first send and 3 retries');
      assert.deepEqual(attempts, [1, 2, 3, 4, 4, 4]);
      const [row] = await h.knex('alert_notifications').select('*');
      assert.equal(row.status, 'failed');
      assert.match(row.last_error, /Could not talk to the SMTP server|127\.0\.0\.1/);
      assert.ok(h.logs.messages().some((m) => m.startsWith('Alert e-mail not sent:')));

      // mail works again: the given-up notice is not sent late
      await h.setMail({ enabled: true });
      await h.run();
      assert.equal(h.sink.mails.length, 0);
    }));

  it('drops a queued e-mail whose recipient may no longer see the customer when it is sent', () =>
    withHarness(async (h) => {
      const customerId = await h.customer();
      const admin = await h.account({ role: 'ADMIN' });
      const operator = await h.account({ role: 'OPERATOR', customerIds: [customerId] });
      await h.setMail({ enabled: true, port: await h.deadSmtpPort() });
      const system = await h.system({ customerId });
      await h.report(system.id, [{ name: 'mem.oom_kills', value: 1 }]);
      assert.equal((await h.run()).alerts.triggered, 1);
      assert.equal((await h.knex('alert_notifications').where({ status: 'pending' })).length, 2);

      // the grant goes before the retry
      await h.knex('user_customer_grants').where({ user_id: operator.id }).delete();
      await h.setMail({ enabled: true });
      h.clock.advance(MINUTE);
      await h.report(system.id, [{ name: 'mem.oom_kills', value: 1 }]);
      await h.run();
      await h.sink.nthMail(1);
      assert.deepEqual(
        h.sink.mails.flatMap((m) => m.to),
        [admin.email],
      );
      const row = await h.knex('alert_notifications').where({ user_id: operator.id }).first();
      assert.equal(row.status, 'dropped');
    }));

  it('queues nothing while SMTP is switched off, and sends no backlog when it is switched on', () =>
    withHarness(async (h) => {
      await h.account({ role: 'ADMIN' });
      await h.setMail({ enabled: false });
      const system = await h.system();
      await h.report(system.id, [{ name: 'mem.oom_kills', value: 1 }]);
      assert.equal((await h.run()).alerts.triggered, 1);
      await h.setMail({ enabled: true });
      h.clock.advance(MINUTE);
      await h.report(system.id, [{ name: 'mem.oom_kills', value: 1 }]);
      await h.run();
      assert.equal((await h.knex('alert_notifications')).length, 0);
      assert.equal(h.sink.mails.length, 0);
    }));
});
