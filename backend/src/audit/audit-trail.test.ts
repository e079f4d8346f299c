/**
 * The audit log through the real app: one row per action kind with its actor,
 * client address and customer; secrets never in any row; a refused change stores no row.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Knex } from 'knex';
import { useTestServer } from '../testing/app.js';
import { useAuditTrail } from '../testing/audit-trail.js';

describe('audit trail of customers, fleet, alerting and settings', () => {
  const fixture = useTestServer({ ARGUS_ALLOW_PRIVATE_WEBHOOKS: 'true' });
  const { state, browserAs, rows, onlyRow, byAdmin, count } = useAuditTrail(fixture);
  const db = (): Knex => fixture.db.knex;

  it('records customer create, update and delete with only the changed fields', async () => {
    const created = await state.admin.post('/api/customers', { name: 'Acme', notes: 'first' });
    assert.equal(created.status, 201);
    const create = await onlyRow('customer.create');
    byAdmin(create);
    assert.equal(create.target_type, 'customer');
    assert.equal(create.target_id, String(created.body.id));
    assert.equal(Number(create.customer_id), created.body.id);
    assert.equal(create.before, null);
    assert.deepEqual(create.after, { name: 'Acme', active: true, notes: 'first', timeZone: 'UTC' });

    assert.equal(
      (await state.admin.patch(`/api/customers/${created.body.id}`, { notes: 'second', name: 'Acme' })).status,
      200,
    );
    const update = await onlyRow('customer.update');
    byAdmin(update);
    assert.deepEqual(update.before, { notes: 'first' });
    assert.deepEqual(update.after, { notes: 'second' });

    assert.equal((await state.admin.delete(`/api/customers/${created.body.id}`)).status, 204);
    const removed = await onlyRow('customer.delete');
    byAdmin(removed);
    assert.equal(removed.after, null);
    assert.equal(removed.before?.['name'], 'Acme');
  });

  it('records cluster create, rename, key rotation and delete, the key sealed', async () => {
    const created = await state.admin.post('/api/clusters', { customerId: state.mine, name: 'Blue' });
    assert.equal(created.status, 201);
    const key = created.body.enrollmentKey as string;
    const create = await onlyRow('cluster.create');
    byAdmin(create);
    assert.equal(Number(create.customer_id), state.mine);
    assert.deepEqual(create.after, { name: 'Blue', customerId: state.mine, enrollmentKey: '[sealed]' });

    assert.equal((await state.admin.patch(`/api/clusters/${created.body.id}`, { name: 'Green' })).status, 200);
    assert.deepEqual((await onlyRow('cluster.update')).after, { name: 'Green' });

    const rotated = await state.admin.post(`/api/clusters/${created.body.id}/enrollment-key`);
    assert.equal(rotated.status, 200);
    const rotate = await onlyRow('cluster.enrollment_key.rotate');
    byAdmin(rotate);
    assert.deepEqual(rotate.before, { enrollmentKey: '[sealed]' });
    assert.deepEqual(rotate.after, { enrollmentKey: '[sealed]' });

    assert.equal((await state.admin.delete(`/api/clusters/${created.body.id}`)).status, 204);
    assert.equal(Number((await onlyRow('cluster.delete')).customer_id), state.mine);

    const everything = JSON.stringify(await db()('audit_log').select('*'));
    assert.ok(!everything.includes(key), 'the first enrollment key is in no row');
    assert.ok(!everything.includes(rotated.body.enrollmentKey as string), 'the rotated key is in no row');
  });

  it("records system update, re-enrolment and delete at the system's customer", async () => {
    const [row] = await db()('systems')
      .insert({ customer_id: state.mine, name: 'web-1', hostname: 'web-1.example.net', status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    const id = (row as { id: number }).id;
    assert.equal(
      (await state.admin.patch(`/api/systems/${id}`, { name: 'web-one', offlineAlerts: false })).status,
      200,
    );
    const update = await onlyRow('system.update');
    byAdmin(update);
    assert.equal(Number(update.customer_id), state.mine);
    assert.deepEqual(update.before, { name: 'web-1', offlineAlerts: true });
    assert.deepEqual(update.after, { name: 'web-one', offlineAlerts: false });
    assert.equal((await state.admin.post(`/api/systems/${id}/re-enroll`)).status, 204);
    assert.equal((await onlyRow('system.re_enroll')).target_id, String(id));
    assert.equal((await state.admin.delete(`/api/systems/${id}`)).status, 204);
    assert.equal((await onlyRow('system.delete')).before?.['name'], 'web-one');
  });

  it("records alert and event rules (create, update, delete) at the scope's customer, the key kept", async () => {
    const operator = await browserAs('OPERATOR', [state.mine]);
    const created = await operator.client.post('/api/alert-rules', {
      key: 'cpu.custom',
      name: 'CPU custom',
      severity: 'WARNING',
      metric: 'cpu.usage_pct',
      operator: '>',
      threshold: 80,
      scope: { type: 'customer', id: state.mine },
    });
    assert.equal(created.status, 201);
    const create = await onlyRow('alert_rule.create');
    assert.equal(Number(create.actor_id), operator.id);
    assert.equal(Number(create.customer_id), state.mine);
    assert.equal(create.after?.['key'], 'cpu.custom');
    assert.equal((await operator.client.patch(`/api/alert-rules/${created.body.id}`, { threshold: 90 })).status, 200);
    const update = await onlyRow('alert_rule.update');
    assert.deepEqual(update.before, { threshold: 80 });
    assert.deepEqual(update.after, { threshold: 90 });
    assert.equal((await operator.client.delete(`/api/alert-rules/${created.body.id}`)).status, 204);
    assert.equal(Number((await onlyRow('alert_rule.delete')).customer_id), state.mine);

    const event = await state.admin.post('/api/event-rules', {
      key: 'system.rebooted.audit',
      name: 'Rebooted',
      severity: 'INFO',
      derived: 'reboot',
    });
    assert.equal(event.status, 201);
    byAdmin(await onlyRow('event_rule.create'));
    assert.equal((await onlyRow('event_rule.create')).customer_id, null);
    assert.equal((await state.admin.patch(`/api/event-rules/${event.body.id}`, { severity: 'WARNING' })).status, 200);
    assert.deepEqual((await onlyRow('event_rule.update')).after, { severity: 'WARNING' });
    assert.equal((await state.admin.delete(`/api/event-rules/${event.body.id}`)).status, 204);
    byAdmin(await onlyRow('event_rule.delete'));
  });

  it('records maintenance windows (create, update, delete) at their customer', async () => {
    const created = await state.admin.post('/api/maintenance-windows', {
      name: 'Kernel upgrade',
      kind: 'once',
      startsAt: '2026-11-22T11:00:00Z',
      endsAt: '2026-11-22T13:00:00Z',
      scope: { type: 'customer', id: state.mine },
    });
    assert.equal(created.status, 201);
    const create = await onlyRow('maintenance_window.create');
    byAdmin(create);
    assert.equal(Number(create.customer_id), state.mine);
    assert.equal(create.after?.['name'], 'Kernel upgrade');
    assert.equal(
      (await state.admin.patch(`/api/maintenance-windows/${created.body.id}`, { name: 'Kernel 6.12' })).status,
      200,
    );
    assert.deepEqual((await onlyRow('maintenance_window.update')).after, { name: 'Kernel 6.12' });
    assert.equal((await state.admin.delete(`/api/maintenance-windows/${created.body.id}`)).status, 204);
    assert.equal(Number((await onlyRow('maintenance_window.delete')).customer_id), state.mine);
  });

  it('records channels and policies, never a webhook URL or signing secret', async () => {
    const hookUrl = 'http://127.0.0.1:9/hooks/T0KEN-IN-THE-PATH';
    const signing = 'sign-me-audit-secret';
    const created = await state.admin.post('/api/notification-channels', {
      name: 'Ops hook',
      type: 'webhook',
      target: hookUrl,
      secret: signing,
      minSeverity: 'WARNING',
      customerId: state.mine,
    });
    assert.equal(created.status, 201);
    const create = await onlyRow('channel.create');
    byAdmin(create);
    assert.equal(Number(create.customer_id), state.mine);
    assert.equal(create.after?.['target'], '[sealed]');
    assert.equal(create.after?.['secret'], '[sealed]');
    const id = created.body.id as number;
    const changed = await state.admin.patch(`/api/notification-channels/${id}`, {
      name: 'Ops hook 2',
      target: `${hookUrl}-NEW`,
      secret: `${signing}-new`,
    });
    assert.equal(changed.status, 200);
    const update = await onlyRow('channel.update');
    assert.deepEqual(update.after, {
      name: 'Ops hook 2',
      target: '[sealed]',
      secret: '[sealed]',
    });

    const policy = { routes: [{ minSeverity: 'INFO', channelIds: [id] }] };
    assert.equal((await state.admin.put(`/api/notification-policies/customer/${state.mine}`, policy)).status, 200);
    const save = await onlyRow('policy.save');
    byAdmin(save);
    assert.equal(Number(save.customer_id), state.mine);
    assert.equal(save.before, null);
    assert.deepEqual((save.after?.['routes'] as unknown[])[0], { minSeverity: 'INFO', channelIds: [id] });
    assert.equal((await state.admin.delete(`/api/notification-policies/customer/${state.mine}`)).status, 204);
    assert.equal((await onlyRow('policy.delete')).target_id, String(state.mine));

    assert.equal((await state.admin.delete(`/api/notification-channels/${id}`)).status, 204);
    assert.equal(Number((await onlyRow('channel.delete')).customer_id), state.mine);

    const everything = JSON.stringify(await db()('audit_log').select('*'));
    for (const secret of [hookUrl, 'T0KEN-IN-THE-PATH', signing]) assert.ok(!everything.includes(secret), secret);
  });

  it('records SMTP, alert retention and agent settings, never the SMTP password or a secret value', async () => {
    const smtpPassword = 'smtp-Pa55word-audit';
    const smtp = await state.admin.put('/api/settings/smtp', {
      enabled: false,
      host: 'mail.example.com',
      port: 587,
      encryption: 'starttls',
      user: 'argus',
      password: smtpPassword,
      fromAddress: 'argus@example.com',
    });
    assert.equal(smtp.status, 200);
    const smtpRow = await onlyRow('settings.smtp.update');
    byAdmin(smtpRow);
    assert.equal(smtpRow.after?.['host'], 'mail.example.com');
    assert.equal(smtpRow.after?.['password'], '[sealed]');
    assert.equal(smtpRow.before?.['password'], null);

    assert.equal((await state.admin.put('/api/settings/alerts', { retentionDays: 30 })).status, 200);
    const retention = await onlyRow('settings.alert_retention.update');
    assert.deepEqual(retention.before, { retentionDays: 90 });
    assert.deepEqual(retention.after, { retentionDays: 30 });

    const [cluster] = await db()('clusters')
      .insert({ customer_id: state.mine, name: 'settings', enrollment_key: 'k'.repeat(32) })
      .returning<{ id: number }[]>('id');
    const clusterId = (cluster as { id: number }).id;
    const secretValue = 'agent-secret-value-audit';
    const setting = await state.admin.post('/api/agent-settings', {
      scope: { type: 'cluster', id: clusterId },
      key: 'db.password',
      value: secretValue,
      secret: true,
    });
    assert.equal(setting.status, 201);
    const create = await onlyRow('agent_setting.create');
    assert.equal(Number(create.customer_id), state.mine);
    assert.deepEqual(create.after, {
      scope: { type: 'cluster', id: clusterId },
      key: 'db.password',
      kind: 'secret',
      secretValue: '[sealed]',
    });
    assert.equal(
      (await state.admin.patch(`/api/agent-settings/${setting.body.id}`, { value: `${secretValue}-2` })).status,
      200,
    );
    assert.deepEqual((await onlyRow('agent_setting.update')).after, { secretValue: '[sealed]' });
    assert.equal((await state.admin.delete(`/api/agent-settings/${setting.body.id}`)).status, 204);
    byAdmin(await onlyRow('agent_setting.delete'));

    const everything = JSON.stringify(await db()('audit_log').select('*'));
    for (const secret of [smtpPassword, secretValue]) assert.ok(!everything.includes(secret), secret);
  });

  it("records an acknowledgement at the alert's customer", async () => {
    const [system] = await db()('systems')
      .insert({ customer_id: state.mine, name: 'db-1', hostname: 'db-1.example.net', status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    const [alert] = await db()('alerts')
      .insert({
        rule_key: 'cpu.high',
        rule_kind: 'metric',
        system_id: (system as { id: number }).id,
        customer_id: state.mine,
        instance: '',
        severity: 'WARNING',
        state: 'open',
        message: 'cpu high',
        started_at: new Date(),
      })
      .returning<{ id: string }[]>('id');
    const id = Number((alert as { id: string }).id);
    assert.equal((await state.admin.post(`/api/alerts/${id}/ack`, { note: 'on it' })).status, 200);
    const ack = await onlyRow('alert.acknowledge');
    byAdmin(ack);
    assert.equal(Number(ack.customer_id), state.mine);
    assert.deepEqual(ack.after, { note: 'on it', until: null });
    assert.equal((await state.admin.post(`/api/alerts/${id}/ack`, { note: 'again' })).status, 409);
    assert.equal((await rows('alert.acknowledge')).length, 1, 'the refused second one stores no row');
  });

  it('records the agent rollout mode and an update retry', async () => {
    assert.equal((await state.admin.put('/api/settings/agent-rollout', { mode: 'canary' })).status, 200);
    const rollout = await onlyRow('settings.agent_rollout.update');
    byAdmin(rollout);
    assert.deepEqual([rollout.before, rollout.after], [{ mode: 'all' }, { mode: 'canary' }]);
    const [system] = await db()('systems')
      .insert({ customer_id: state.mine, name: 'upd-1', hostname: 'upd-1.example.net', status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    const id = (system as { id: number }).id;
    assert.equal((await state.admin.post(`/api/systems/${id}/retry-update`)).status, 204);
    assert.equal((await onlyRow('system.retry_update')).target_id, String(id));
    assert.equal((await state.admin.post('/api/systems/999999/retry-update')).status, 404);
    assert.equal((await rows('system.retry_update')).length, 1);
  });

  it('stores no row for a refused change (400, 403, 404, 409)', async () => {
    const operator = (await browserAs('OPERATOR', [state.mine])).client;
    const viewer = (await browserAs('VIEWER', [state.mine])).client;
    const before = await count();
    assert.equal((await state.admin.post('/api/customers', { name: '' })).status, 400);
    assert.equal((await state.admin.post('/api/customers', { name: 'Mine' })).status, 409);
    assert.equal((await state.admin.patch('/api/customers/999999', { notes: 'x' })).status, 404);
    assert.equal((await operator.post('/api/customers', { name: 'Nope' })).status, 403);
    assert.equal((await viewer.post('/api/clusters', { customerId: state.mine, name: 'Nope' })).status, 403);
    assert.equal(await count(), before);
  });
});
