/**
 * The audit log through the real app (issue 14 item 3): one row per action kind with its actor,
 * client address and customer; secrets never in any row; a refused change stores no row.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';
import type { Role } from '../lib/access.js';

const ADDRESS = '203.0.113.7';

interface StoredRow {
  id: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  address: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  customer_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

describe('audit trail', () => {
  const fixture = useTestServer({ ARGUS_ALLOW_PRIVATE_WEBHOOKS: 'true' });
  let db: Knex;
  let admin: Client;
  let adminId: number;
  let adminEmail: string;
  let mine: number;

  /** A browser at ADDRESS (the proxy's X-Forwarded-For) signed in as a new account. */
  async function browserAs(role: Role, customerIds: number[] = []) {
    const account = await createAccount(db, { role, customerIds });
    const client = new Client(fixture.server.url, { 'x-forwarded-for': ADDRESS });
    const reply = await client.signIn(account.email, account.password);
    assert.equal(reply.status, 200);
    return { client, ...account };
  }

  const rows = async (action: string): Promise<StoredRow[]> =>
    (await db('audit_log').where({ action }).orderBy('id')) as StoredRow[];

  async function onlyRow(action: string): Promise<StoredRow> {
    const found = await rows(action);
    assert.equal(found.length, 1, `one ${action} row, got ${found.length}`);
    return found[0] as StoredRow;
  }

  function byAdmin(row: StoredRow) {
    assert.equal(row.actor_type, 'user');
    assert.equal(Number(row.actor_id), adminId);
    assert.equal(row.actor_name, adminEmail);
    assert.equal(row.address, ADDRESS);
  }

  const count = async () => Number((await db('audit_log').count<{ count: string }[]>('* as count'))[0]?.count);

  before(async () => {
    db = fixture.db.knex;
    mine = await createCustomer(db, 'Mine');
    const signedIn = await browserAs('ADMIN');
    admin = signedIn.client;
    adminId = signedIn.id;
    adminEmail = signedIn.email;
  });

  it('records customer create, update and delete with only the changed fields', async () => {
    const created = await admin.post('/api/customers', { name: 'Acme', notes: 'first' });
    assert.equal(created.status, 201);
    const create = await onlyRow('customer.create');
    byAdmin(create);
    assert.equal(create.target_type, 'customer');
    assert.equal(create.target_id, String(created.body.id));
    assert.equal(Number(create.customer_id), created.body.id);
    assert.equal(create.before, null);
    assert.deepEqual(create.after, { name: 'Acme', active: true, notes: 'first', timeZone: 'UTC' });

    assert.equal(
      (await admin.patch(`/api/customers/${created.body.id}`, { notes: 'second', name: 'Acme' })).status,
      200,
    );
    const update = await onlyRow('customer.update');
    byAdmin(update);
    assert.deepEqual(update.before, { notes: 'first' });
    assert.deepEqual(update.after, { notes: 'second' });

    assert.equal((await admin.delete(`/api/customers/${created.body.id}`)).status, 204);
    const removed = await onlyRow('customer.delete');
    byAdmin(removed);
    assert.equal(removed.after, null);
    assert.equal(removed.before?.['name'], 'Acme');
  });

  it('records cluster create, rename, key rotation and delete, the key sealed', async () => {
    const created = await admin.post('/api/clusters', { customerId: mine, name: 'Blue' });
    assert.equal(created.status, 201);
    const key = created.body.enrollmentKey as string;
    const create = await onlyRow('cluster.create');
    byAdmin(create);
    assert.equal(Number(create.customer_id), mine);
    assert.deepEqual(create.after, { name: 'Blue', customerId: mine, enrollmentKey: '[sealed]' });

    assert.equal((await admin.patch(`/api/clusters/${created.body.id}`, { name: 'Green' })).status, 200);
    assert.deepEqual((await onlyRow('cluster.update')).after, { name: 'Green' });

    const rotated = await admin.post(`/api/clusters/${created.body.id}/enrollment-key`);
    assert.equal(rotated.status, 200);
    const rotate = await onlyRow('cluster.enrollment_key.rotate');
    byAdmin(rotate);
    assert.deepEqual(rotate.before, { enrollmentKey: '[sealed]' });
    assert.deepEqual(rotate.after, { enrollmentKey: '[sealed]' });

    assert.equal((await admin.delete(`/api/clusters/${created.body.id}`)).status, 204);
    assert.equal(Number((await onlyRow('cluster.delete')).customer_id), mine);

    const everything = JSON.stringify(await db('audit_log').select('*'));
    assert.ok(!everything.includes(key), 'the first enrollment key is in no row');
    assert.ok(!everything.includes(rotated.body.enrollmentKey as string), 'the rotated key is in no row');
  });

  it("records system update, re-enrolment and delete at the system's customer", async () => {
    const [row] = await db('systems')
      .insert({ customer_id: mine, name: 'web-1', hostname: 'web-1.example.net', status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    const id = (row as { id: number }).id;
    assert.equal((await admin.patch(`/api/systems/${id}`, { name: 'web-one', offlineAlerts: false })).status, 200);
    const update = await onlyRow('system.update');
    byAdmin(update);
    assert.equal(Number(update.customer_id), mine);
    assert.deepEqual(update.before, { name: 'web-1', offlineAlerts: true });
    assert.deepEqual(update.after, { name: 'web-one', offlineAlerts: false });
    assert.equal((await admin.post(`/api/systems/${id}/re-enroll`)).status, 204);
    assert.equal((await onlyRow('system.re_enroll')).target_id, String(id));
    assert.equal((await admin.delete(`/api/systems/${id}`)).status, 204);
    assert.equal((await onlyRow('system.delete')).before?.['name'], 'web-one');
  });

  it('records user create, update (grants, role, password) and delete, never a password or hash', async () => {
    const secretPassword = 'Tr0ub4dor&3-audit-only';
    const created = await admin.post('/api/users', {
      email: 'new.person@example.com',
      name: 'New Person',
      role: 'VIEWER',
      password: secretPassword,
      customerIds: [mine],
    });
    assert.equal(created.status, 201);
    const id = created.body.user.id as number;
    const create = await onlyRow('user.create');
    byAdmin(create);
    assert.equal(create.target_id, String(id));
    assert.deepEqual(create.after?.['customerIds'], [mine]);
    assert.equal(create.after?.['role'], 'VIEWER');

    const changed = await admin.patch(`/api/users/${id}`, {
      role: 'OPERATOR',
      customerIds: [],
      password: `${secretPassword}-2`,
    });
    assert.equal(changed.status, 200);
    const update = await onlyRow('user.update');
    assert.deepEqual(update.before, { role: 'VIEWER', customerIds: [mine] });
    assert.deepEqual(update.after, { role: 'OPERATOR', customerIds: [], password: '[sealed]' });

    assert.equal((await admin.delete(`/api/users/${id}`)).status, 204);
    const removed = await onlyRow('user.delete');
    assert.equal(removed.before?.['email'], 'new.person@example.com');

    const everything = JSON.stringify(await db('audit_log').select('*'));
    assert.ok(!everything.includes(secretPassword));
    assert.ok(!everything.includes('$2'), 'no bcrypt hash in any row');
  });

  it("records an account's own profile and password changes", async () => {
    const own = await browserAs('OPERATOR', [mine]);
    assert.equal((await own.client.patch('/api/account', { name: 'Renamed' })).status, 200);
    const profile = await onlyRow('account.update');
    assert.equal(Number(profile.actor_id), own.id);
    assert.equal(profile.address, ADDRESS);
    assert.deepEqual(profile.after, { name: 'Renamed' });
    const changed = await own.client.post('/api/account/password', {
      currentPassword: own.password,
      newPassword: 'a completely new passphrase 42',
    });
    assert.equal(changed.status, 204);
    const password = await onlyRow('password.change');
    assert.deepEqual(password.after, { password: '[sealed]' });
    assert.ok(!JSON.stringify(await db('audit_log').select('*')).includes('a completely new passphrase 42'));
  });

  it('records token creation and revocation, never the token; a token is named as actor', async () => {
    const created = await admin.post('/api/tokens', { name: 'script' });
    assert.equal(created.status, 201);
    const create = await onlyRow('token.create');
    byAdmin(create);
    assert.equal(create.target_id, String(created.body.id));
    assert.equal(create.after?.['name'], 'script');

    const script = new Client(fixture.server.url, {
      authorization: `Bearer ${created.body.token as string}`,
      'x-forwarded-for': '198.51.100.9',
    });
    assert.equal((await script.post('/api/customers', { name: 'By token' })).status, 201);
    const byToken = (await rows('customer.create')).find((r) => r.after?.['name'] === 'By token') as StoredRow;
    assert.equal(byToken.actor_type, 'token');
    assert.equal(Number(byToken.actor_id), created.body.id);
    assert.equal(byToken.actor_name, adminEmail);
    assert.equal(byToken.address, '198.51.100.9');

    assert.equal((await admin.delete(`/api/tokens/${created.body.id}`)).status, 200);
    byAdmin(await onlyRow('token.revoke'));
    assert.ok(!JSON.stringify(await db('audit_log').select('*')).includes(created.body.token as string));
  });

  it("records alert and event rules (create, update, delete) at the scope's customer, the key kept", async () => {
    const operator = await browserAs('OPERATOR', [mine]);
    const created = await operator.client.post('/api/alert-rules', {
      key: 'cpu.custom',
      name: 'CPU custom',
      severity: 'WARNING',
      metric: 'cpu.usage_pct',
      operator: '>',
      threshold: 80,
      scope: { type: 'customer', id: mine },
    });
    assert.equal(created.status, 201);
    const create = await onlyRow('alert_rule.create');
    assert.equal(Number(create.actor_id), operator.id);
    assert.equal(Number(create.customer_id), mine);
    assert.equal(create.after?.['key'], 'cpu.custom');
    assert.equal((await operator.client.patch(`/api/alert-rules/${created.body.id}`, { threshold: 90 })).status, 200);
    const update = await onlyRow('alert_rule.update');
    assert.deepEqual(update.before, { threshold: 80 });
    assert.deepEqual(update.after, { threshold: 90 });
    assert.equal((await operator.client.delete(`/api/alert-rules/${created.body.id}`)).status, 204);
    assert.equal(Number((await onlyRow('alert_rule.delete')).customer_id), mine);

    const event = await admin.post('/api/event-rules', {
      key: 'system.rebooted.audit',
      name: 'Rebooted',
      severity: 'INFO',
      derived: 'reboot',
    });
    assert.equal(event.status, 201);
    byAdmin(await onlyRow('event_rule.create'));
    assert.equal((await onlyRow('event_rule.create')).customer_id, null);
    assert.equal((await admin.patch(`/api/event-rules/${event.body.id}`, { severity: 'WARNING' })).status, 200);
    assert.deepEqual((await onlyRow('event_rule.update')).after, { severity: 'WARNING' });
    assert.equal((await admin.delete(`/api/event-rules/${event.body.id}`)).status, 204);
    byAdmin(await onlyRow('event_rule.delete'));
  });

  it('records maintenance windows (create, update, delete) at their customer', async () => {
    const created = await admin.post('/api/maintenance-windows', {
      name: 'Kernel upgrade',
      kind: 'once',
      startsAt: '2026-11-22T11:00:00Z',
      endsAt: '2026-11-22T13:00:00Z',
      scope: { type: 'customer', id: mine },
    });
    assert.equal(created.status, 201);
    const create = await onlyRow('maintenance_window.create');
    byAdmin(create);
    assert.equal(Number(create.customer_id), mine);
    assert.equal(create.after?.['name'], 'Kernel upgrade');
    assert.equal(
      (await admin.patch(`/api/maintenance-windows/${created.body.id}`, { name: 'Kernel 6.12' })).status,
      200,
    );
    assert.deepEqual((await onlyRow('maintenance_window.update')).after, { name: 'Kernel 6.12' });
    assert.equal((await admin.delete(`/api/maintenance-windows/${created.body.id}`)).status, 204);
    assert.equal(Number((await onlyRow('maintenance_window.delete')).customer_id), mine);
  });

  it('records channels and policies, never a webhook URL or signing secret', async () => {
    const hookUrl = 'http://127.0.0.1:9/hooks/T0KEN-IN-THE-PATH';
    const signing = 'sign-me-audit-secret';
    const created = await admin.post('/api/notification-channels', {
      name: 'Ops hook',
      type: 'webhook',
      target: hookUrl,
      secret: signing,
      minSeverity: 'WARNING',
      customerId: mine,
    });
    assert.equal(created.status, 201);
    const create = await onlyRow('channel.create');
    byAdmin(create);
    assert.equal(Number(create.customer_id), mine);
    assert.equal(create.after?.['target'], '[sealed]');
    assert.equal(create.after?.['secret'], '[sealed]');
    const id = created.body.id as number;
    const changed = await admin.patch(`/api/notification-channels/${id}`, {
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
    assert.equal((await admin.put(`/api/notification-policies/customer/${mine}`, policy)).status, 200);
    const save = await onlyRow('policy.save');
    byAdmin(save);
    assert.equal(Number(save.customer_id), mine);
    assert.equal(save.before, null);
    assert.deepEqual((save.after?.['routes'] as unknown[])[0], { minSeverity: 'INFO', channelIds: [id] });
    assert.equal((await admin.delete(`/api/notification-policies/customer/${mine}`)).status, 204);
    assert.equal((await onlyRow('policy.delete')).target_id, String(mine));

    assert.equal((await admin.delete(`/api/notification-channels/${id}`)).status, 204);
    assert.equal(Number((await onlyRow('channel.delete')).customer_id), mine);

    const everything = JSON.stringify(await db('audit_log').select('*'));
    for (const secret of [hookUrl, 'T0KEN-IN-THE-PATH', signing]) assert.ok(!everything.includes(secret), secret);
  });

  it('records SMTP, alert retention and agent settings, never the SMTP password or a secret value', async () => {
    const smtpPassword = 'smtp-Pa55word-audit';
    const smtp = await admin.put('/api/settings/smtp', {
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

    assert.equal((await admin.put('/api/settings/alerts', { retentionDays: 30 })).status, 200);
    const retention = await onlyRow('settings.alert_retention.update');
    assert.deepEqual(retention.before, { retentionDays: 90 });
    assert.deepEqual(retention.after, { retentionDays: 30 });

    const [cluster] = await db('clusters')
      .insert({ customer_id: mine, name: 'settings', enrollment_key: 'k'.repeat(32) })
      .returning<{ id: number }[]>('id');
    const clusterId = (cluster as { id: number }).id;
    const secretValue = 'agent-secret-value-audit';
    const setting = await admin.post('/api/agent-settings', {
      scope: { type: 'cluster', id: clusterId },
      key: 'db.password',
      value: secretValue,
      secret: true,
    });
    assert.equal(setting.status, 201);
    const create = await onlyRow('agent_setting.create');
    assert.equal(Number(create.customer_id), mine);
    assert.deepEqual(create.after, {
      scope: { type: 'cluster', id: clusterId },
      key: 'db.password',
      kind: 'secret',
      secretValue: '[sealed]',
    });
    assert.equal(
      (await admin.patch(`/api/agent-settings/${setting.body.id}`, { value: `${secretValue}-2` })).status,
      200,
    );
    assert.deepEqual((await onlyRow('agent_setting.update')).after, { secretValue: '[sealed]' });
    assert.equal((await admin.delete(`/api/agent-settings/${setting.body.id}`)).status, 204);
    byAdmin(await onlyRow('agent_setting.delete'));

    const everything = JSON.stringify(await db('audit_log').select('*'));
    for (const secret of [smtpPassword, secretValue]) assert.ok(!everything.includes(secret), secret);
  });

  it('stores no row for a refused change (400, 403, 404, 409)', async () => {
    const operator = (await browserAs('OPERATOR', [mine])).client;
    const viewer = (await browserAs('VIEWER', [mine])).client;
    const before = await count();
    assert.equal((await admin.post('/api/customers', { name: '' })).status, 400);
    assert.equal((await admin.post('/api/customers', { name: 'Mine' })).status, 409);
    assert.equal((await admin.patch('/api/customers/999999', { notes: 'x' })).status, 404);
    assert.equal((await operator.post('/api/customers', { name: 'Nope' })).status, 403);
    assert.equal((await viewer.post('/api/clusters', { customerId: mine, name: 'Nope' })).status, 403);
    assert.equal(await count(), before);
  });
});
