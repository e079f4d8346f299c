/**
 * Routing, repeat, escalation, retries and suppression of channel notifications, through
 * the real evaluation run, real HTTP receivers on 127.0.0.1 (allowed as ARGUS_ALLOW_PRIVATE_WEBHOOKS
 * does), a real SMTP sink and a fake clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { currentSuppression } from '../evaluation/service.js';
import { sealedWebhook } from '../testing/channels.js';
import { AUTH_URL, MINUTE, withHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';

const HIGH = [{ name: 'disk.used_pct', instance: '/var', value: 91.25 }];
const LOW = [{ name: 'disk.used_pct', instance: '/var', value: 40 }];

function channel(
  h: EvaluationHarness,
  receiver: WebhookReceiver,
  options: { customerId?: number | null; secret?: string; minSeverity?: string; enabled?: boolean; path?: string } = {},
): Promise<number> {
  const { path = 'hook', ...rest } = options;
  return sealedWebhook(h.knex, h.box, `${receiver.url}/${path}`, { ...rest, name: `hook ${path}` });
}

async function policy(
  h: EvaluationHarness,
  customerId: number | null,
  fields: {
    routes: { minSeverity: string; channelIds: number[] }[];
    repeat?: number;
    escalate?: number;
    to?: number[];
  },
): Promise<void> {
  const row = {
    customer_id: customerId,
    routes: JSON.stringify(fields.routes),
    repeat_minutes: fields.repeat ?? null,
    escalate_after_minutes: fields.escalate ?? null,
    escalate_channel_ids: fields.to ?? [],
  };
  if (customerId === null) await h.knex('notification_policies').whereNull('customer_id').update(row);
  else await h.knex('notification_policies').insert(row);
}

/** Report (the disk stays high or goes low), advance the clock, run. */
async function minuteLater(h: EvaluationHarness, systemId: number, samples = HIGH, minutes = 1) {
  h.clock.advance(minutes * MINUTE);
  await h.report(systemId, samples);
  return h.run();
}

async function raise(h: EvaluationHarness, systemId: number) {
  await h.report(systemId, HIGH);
  await h.run();
  await minuteLater(h, systemId, HIGH, 5);
  const [alert] = await h.openAlerts(systemId);
  assert.ok(alert, 'the disk alert is raised');
  return alert as { id: string; rule_key: string };
}

describe('notification routing', () => {
  it('sends a signed raised, then repeat, escalated and resolved, and nothing while a window covers the system', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver('hook-secret');
      const pager = await startWebhookReceiver();
      try {
        const customerId = await h.customer();
        const system = await h.system({ customerId, name: 'web-01' });
        const wh = await channel(h, hook, { customerId, secret: 'hook-secret' });
        const page = await channel(h, pager, { path: 'pager' });
        await policy(h, customerId, {
          routes: [{ minSeverity: 'WARNING', channelIds: [wh] }],
          repeat: 10,
          escalate: 25,
          to: [page],
        });
        await h.account({ role: 'ADMIN' });

        const alert = await raise(h, system.id);
        assert.deepEqual(hook.events(), ['raised']);
        const first = hook.received[0];
        assert.ok(first);
        assert.equal(first.signatureValid, true);
        assert.equal(first.headers['x-argus-event'], 'raised');
        assert.match(String(first.headers['x-argus-delivery']), /^[0-9a-f-]{36}$/);
        assert.equal(first.headers['authorization'], undefined);
        assert.equal(first.headers['cookie'], undefined);
        const body = first.json as {
          alert: { id: number; ruleKey: string; severity: string };
          system: { name: string };
          customer: { id: number };
          url: string;
        };
        assert.equal(body.alert.id, Number(alert.id));
        assert.equal(body.alert.ruleKey, 'disk.high');
        assert.equal(body.alert.severity, 'WARNING');
        assert.equal(body.system.name, 'web-01');
        assert.equal(body.customer.id, customerId);
        assert.equal(body.url, `${AUTH_URL}/alerts/${alert.id}`);
        // the customer's own policy replaces the global one: no account e-mails
        assert.equal(h.sink.mails.length, 0);

        for (let minute = 1; minute <= 9; minute++) await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised'], 'no repeat before 10 minutes');
        await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised', 'repeat']);
        assert.notEqual(hook.received[1]?.headers['x-argus-delivery'], first.headers['x-argus-delivery']);

        for (let minute = 1; minute <= 15; minute++) await minuteLater(h, system.id);
        assert.deepEqual(pager.events(), ['escalated'], '25 minutes after it was raised');
        assert.deepEqual(hook.events(), ['raised', 'repeat', 'repeat']);

        await h.knex('maintenance_windows').insert({
          customer_id: customerId,
          scope_type: 'system',
          scope_id: system.id,
          name: 'patching',
          kind: 'once',
          starts_at: h.clock.now(),
          ends_at: new Date(h.clock.now().getTime() + 30 * MINUTE),
        });
        for (let minute = 1; minute <= 20; minute++) await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised', 'repeat', 'repeat'], 'no repeat inside the window');
        await h.knex('maintenance_windows').delete();
        await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised', 'repeat', 'repeat', 'repeat'], 'the overdue repeat once it ends');

        await minuteLater(h, system.id, LOW);
        assert.deepEqual(hook.events(), ['raised', 'repeat', 'repeat', 'repeat', 'resolved']);
        assert.deepEqual(pager.events(), ['escalated'], 'escalated once');
        assert.ok(hook.received.every((r) => r.signatureValid === true));
      } finally {
        await hook.close();
        await pager.close();
      }
    }));

  it('retries a 500 with the same delivery id, and logs every attempt with the alert', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        const customerId = await h.customer();
        const system = await h.system({ customerId });
        await policy(h, null, { routes: [{ minSeverity: 'INFO', channelIds: [await channel(h, hook)] }] });
        hook.answer(500, 503);
        const alert = await raise(h, system.id);
        assert.equal(hook.received.length, 1);
        await minuteLater(h, system.id);
        assert.equal(hook.received.length, 2, 'retried 30 s later, at the next run');
        await minuteLater(h, system.id);
        assert.equal(hook.received.length, 2, 'the second retry waits 2 minutes');
        await minuteLater(h, system.id);
        assert.equal(hook.received.length, 3);
        const ids = new Set(hook.received.map((r) => r.headers['x-argus-delivery']));
        assert.equal(ids.size, 1, 'one delivery id across the retries');
        const [row] = await h.knex('channel_deliveries').where({ alert_id: alert.id });
        assert.equal(row.status, 'sent');
        assert.equal(row.attempts, 3);
        assert.equal(row.last_status, 200);
        assert.deepEqual(
          row.attempt_log.map((a: { status: number; error: string | null }) => [a.status, a.error !== null]),
          [
            [500, true],
            [503, true],
            [200, false],
          ],
          'every attempt is in the log',
        );
      } finally {
        await hook.close();
      }
    }));

  it('routes by the global policy, severity, channel minimum and enabled, each channel once', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        const customerId = await h.customer();
        const other = await h.customer();
        const system = await h.system({ customerId });
        const all = await channel(h, hook, { path: 'all' });
        const criticalOnly = await channel(h, hook, { path: 'critical', minSeverity: 'CRITICAL' });
        const off = await channel(h, hook, { path: 'off', enabled: false });
        const foreign = await channel(h, hook, { path: 'foreign', customerId: other });
        await policy(h, null, {
          routes: [
            { minSeverity: 'INFO', channelIds: [all, criticalOnly, off, foreign] },
            { minSeverity: 'WARNING', channelIds: [all] },
            { minSeverity: 'CRITICAL', channelIds: [criticalOnly] },
          ],
        });
        await raise(h, system.id);
        assert.deepEqual(
          hook.received.map((r) => r.path),
          ['/all'],
          'a WARNING: once to "all"; not the CRITICAL-only, disabled or foreign channel',
        );
      } finally {
        await hook.close();
      }
    }));

  it('stops repeating while acknowledged, and resumes when the acknowledgement expires', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        const customerId = await h.customer();
        const system = await h.system({ customerId });
        await policy(h, customerId, {
          routes: [{ minSeverity: 'INFO', channelIds: [await channel(h, hook)] }],
          repeat: 5,
        });
        const alert = await raise(h, system.id);
        await h
          .knex('alerts')
          .where({ id: alert.id })
          .update({ acknowledged_at: h.clock.now(), ack_until: new Date(h.clock.now().getTime() + 12 * MINUTE) });
        for (let minute = 1; minute <= 11; minute++) await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised'], 'acknowledged: no repeat');
        await minuteLater(h, system.id);
        const row = await h.knex('alerts').where({ id: alert.id }).first();
        assert.equal(row.acknowledged_at, null, 'the expiry cleared the acknowledgement');
        assert.ok(
          h.recorded.alerts.some((e) => e.type === 'unacknowledged' && e.alert.id === Number(alert.id)),
          'and published it',
        );
        for (let minute = 1; minute <= 4; minute++) await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised']);
        await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised', 'repeat'], 'repeats resume 5 minutes after the expiry');
      } finally {
        await hook.close();
      }
    }));

  it('sends nothing for an inactive customer, and no account e-mail for a route without the accounts channel', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        const customerId = await h.customer();
        const system = await h.system({ customerId });
        await h.account({ role: 'ADMIN' });
        await policy(h, customerId, {
          routes: [{ minSeverity: 'INFO', channelIds: [await channel(h, hook)] }],
          repeat: 1,
        });
        await raise(h, system.id);
        assert.deepEqual(hook.events(), ['raised']);
        await h.knex('customers').where({ id: customerId }).update({ active: false });
        for (let minute = 1; minute <= 3; minute++) await minuteLater(h, system.id);
        await minuteLater(h, system.id, LOW);
        assert.deepEqual(hook.events(), ['raised'], 'no repeat or resolved while the customer is inactive');
        assert.equal(h.sink.mails.length, 0);
      } finally {
        await hook.close();
      }
    }));

  it('gives up on a target that hangs after the timeout, and retries it', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        const system = await h.system();
        await policy(h, null, { routes: [{ minSeverity: 'INFO', channelIds: [await channel(h, hook)] }] });
        hook.answer(0);
        const alert = await raise(h, system.id);
        const [hung] = await h.knex('channel_deliveries').where({ alert_id: alert.id });
        assert.equal(hung.status, 'pending', 'to be retried');
        assert.match(hung.last_error, /no answer within 2 s/);
        await minuteLater(h, system.id);
        const [row] = await h.knex('channel_deliveries').where({ alert_id: alert.id });
        assert.equal(row.status, 'sent');
        assert.equal(hook.received.length, 2);
      } finally {
        await hook.close();
      }
    }));

  it('holds an escalation while a window covers the system, and drops an acknowledgement sent for it', () =>
    withHarness(async (h) => {
      const hook = await startWebhookReceiver();
      try {
        const customerId = await h.customer();
        const system = await h.system({ customerId });
        const wh = await channel(h, hook);
        await policy(h, customerId, { routes: [{ minSeverity: 'INFO', channelIds: [wh] }], escalate: 3, to: [wh] });
        const alert = await raise(h, system.id);
        await h.knex('maintenance_windows').insert({
          customer_id: customerId,
          scope_type: 'customer',
          scope_id: customerId,
          name: 'move',
          kind: 'once',
          starts_at: h.clock.now(),
          ends_at: new Date(h.clock.now().getTime() + 10 * MINUTE),
        });
        for (let minute = 1; minute <= 5; minute++) await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised'], 'no escalation inside the window');

        // an acknowledgement queued now is dropped at send time: the system is suppressed
        const ack = h.notifier.acknowledgements(() => currentSuppression(h.repos.run, h.clock.now()));
        const notify = await ack.prepare();
        await h.knex.transaction((trx) => notify.queue(trx, Number(alert.id)));
        notify.send();
        await h.evaluation.settled();
        await new Promise((resolve) => setTimeout(resolve, 200));
        await h.evaluation.settled();
        const [dropped] = await h.knex('channel_deliveries').where({ alert_id: alert.id, event: 'acknowledged' });
        assert.equal(dropped.status, 'dropped');
        assert.equal(dropped.last_error, 'suppressed');

        await h.knex('maintenance_windows').delete();
        await minuteLater(h, system.id);
        assert.deepEqual(hook.events(), ['raised', 'escalated'], 'the escalation once the window ends');
      } finally {
        await hook.close();
      }
    }));
});
