/**
 * GET /api/reports/availability and /api/customers/:id/monthly-report over the real server: exact
 * figures for a Berlin customer's October (745 hours), the periods behind them, CSV and a PDF parsed
 * back, who may read what, and input refused with the field named and nothing stored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Knex } from 'knex';
import { PDFParse } from 'pdf-parse';
import { ensureDefaultRules } from '../../../db/seed-rules.js';
import { FakeClock } from '../lib/clock.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { bearer, Client, signedInAs } from '../testing/http.js';

const HOUR = 3_600_000;
const clock = new FakeClock(new Date('2026-11-10T12:00:00Z'));
const OCTOBER = 'from=2026-10-01&to=2026-10-31';

async function insertSystem(db: Knex, customerId: number, name: string, clusterId: number | null = null) {
  const [row] = await db('systems')
    .insert({ customer_id: customerId, cluster_id: clusterId, name, hostname: name, created_at: '2026-01-01T00:00Z' })
    .returning<{ id: number }[]>('id');
  return (row as { id: number }).id;
}

async function insertAlert(
  db: Knex,
  system: number,
  customer: number,
  fields: { kind?: string; rule?: string; severity: string; from: string; to: string | null },
): Promise<number> {
  const [row] = await db('alerts')
    .insert({
      rule_key: fields.kind === 'offline' ? 'system.offline' : (fields.rule ?? `rule.${Math.random()}`),
      rule_kind: fields.kind ?? 'metric',
      system_id: system,
      customer_id: customer,
      severity: fields.severity,
      state: fields.to ? 'resolved' : 'open',
      started_at: fields.from,
      resolved_at: fields.to,
    })
    .returning<{ id: string }[]>('id');
  return Number((row as { id: string }).id);
}

describe('availability report API', () => {
  const fixture = useTestServer({}, { clock });
  let customer: number;
  let other: number;
  let offlineAlert: number;
  let criticalAlert: number;
  let readonlyAlert: number;
  let webId: number;
  let dbId: number;
  let admin: Client;

  it('sets up a Berlin customer with two systems, alerts, a weekly window and an inactive day', async () => {
    const db = fixture.db.knex;
    await ensureDefaultRules(db);
    customer = await createCustomer(db, 'Müller Hosting');
    await db('customers').where({ id: customer }).update({ time_zone: 'Europe/Berlin' });
    other = await createCustomer(db, 'Other Ltd');
    const [cluster] = await db('clusters')
      .insert({ customer_id: customer, name: 'web', enrollment_key: 'k'.repeat(32) })
      .returning<{ id: number }[]>('id');
    webId = await insertSystem(db, customer, 'web-1', (cluster as { id: number }).id);
    dbId = await insertSystem(db, customer, 'db-1');
    const otherSystem = await insertSystem(db, other, 'secret-host');
    // 25 October 01:00 CEST → 03:00 CET: 3 hours of real time
    offlineAlert = await insertAlert(db, webId, customer, {
      kind: 'offline',
      severity: 'CRITICAL',
      from: '2026-10-24T23:00:00Z',
      to: '2026-10-25T02:00:00Z',
    });
    // a WARNING does not count
    await insertAlert(db, webId, customer, { severity: 'WARNING', from: '2026-10-12T00:00Z', to: '2026-10-12T10:00Z' });
    // a monitored service down counts as downtime (its rule says so)
    criticalAlert = await insertAlert(db, dbId, customer, {
      rule: 'service.down',
      severity: 'CRITICAL',
      from: '2026-10-10T10:00:00Z',
      to: '2026-10-10T12:00:00Z',
    });
    // a CRITICAL alert of a rule that does not count as downtime: a file system turned read-only
    readonlyAlert = await insertAlert(db, dbId, customer, {
      rule: 'disk.readonly',
      severity: 'CRITICAL',
      from: '2026-10-15T00:00:00Z',
      to: '2026-10-15T10:00:00Z',
    });
    await insertAlert(db, otherSystem, other, {
      kind: 'offline',
      severity: 'CRITICAL',
      from: '2026-10-02T00:00Z',
      to: null,
    });
    // Sundays 02:00 local for an hour, db-1 only: 4 Sundays in October
    await db('maintenance_windows').insert({
      customer_id: customer,
      scope_type: 'system',
      scope_id: dbId,
      name: 'patching',
      kind: 'weekly',
      weekdays: [0],
      start_time: '02:00',
      duration_minutes: 60,
      // in force all year (the report reads windows as they were: db/migrations/0017)
      created_at: '2026-01-01T00:00Z',
    });
    await db('customer_inactive_periods').insert({
      customer_id: customer,
      started_at: '2026-10-05T00:00:00Z',
      ended_at: '2026-10-06T00:00:00Z',
    });
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
  });

  it("answers a month of the customer's calendar with exact figures and the periods behind them", async () => {
    const reply = await admin.get(`/api/reports/availability?customer=${customer}&${OCTOBER}`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const report = reply.body;
    assert.equal(report.from, '2026-09-30T22:00:00.000Z');
    assert.equal(report.to, '2026-10-31T23:00:00.000Z');
    assert.equal(report.dataFrom, null);
    assert.deepEqual(report.customer, {
      id: customer,
      name: 'Müller Hosting',
      timeZone: 'Europe/Berlin',
      active: true,
    });
    const web = report.systems.find((s: { id: number }) => s.id === webId);
    const dbSystem = report.systems.find((s: { id: number }) => s.id === dbId);
    assert.equal(web.periodMs, 745 * HOUR);
    assert.equal(web.inactiveMs, 24 * HOUR);
    assert.equal(web.downMs, 3 * HOUR);
    assert.equal(web.availability, (100 * 718) / 721);
    assert.deepEqual(
      web.periods.find((p: { kind: string }) => p.kind === 'down'),
      { kind: 'down', from: '2026-10-24T23:00:00.000Z', to: '2026-10-25T02:00:00.000Z', alertIds: [offlineAlert] },
    );
    assert.equal(dbSystem.maintenanceMs, 4 * HOUR);
    assert.equal(dbSystem.downMs, 2 * HOUR);
    assert.equal(dbSystem.monitoredMs, 717 * HOUR);
    assert.deepEqual(dbSystem.periods.find((p: { kind: string }) => p.kind === 'down').alertIds, [criticalAlert]);
    assert.equal(report.total.monitoredMs, 1438 * HOUR);
    assert.equal(report.total.availability, (100 * 1433) / 1438);
    assert.deepEqual(
      report.clusters.map((c: { name: string; availability: number }) => [c.name, c.availability]),
      [['web', (100 * 718) / 721]],
    );
    assert.ok(!JSON.stringify(report).includes('secret-host'), 'another customer leaks nothing');
    assert.deepEqual(report.downtimeRules, [
      { key: 'service.down', name: 'Service down' },
      { key: 'system.offline', name: 'System offline' },
    ]);
  });

  it("counts a rule's alerts as downtime once a customer's override says so, and no more once it is gone", async () => {
    const path = `/api/reports/availability?customer=${customer}&${OCTOBER}`;
    const created = await admin.post('/api/alert-rules', {
      key: 'disk.readonly',
      name: 'Filesystem read-only',
      severity: 'CRITICAL',
      metric: 'disk.readonly',
      operator: '==',
      threshold: 1,
      countsAsDowntime: true,
      scope: { type: 'customer', id: customer },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const counted = (await admin.get(path)).body;
    const dbSystem = counted.systems.find((s: { id: number }) => s.id === dbId);
    assert.equal(dbSystem.downMs, 12 * HOUR);
    assert.deepEqual(
      dbSystem.periods
        .filter((p: { kind: string }) => p.kind === 'down')
        .map((p: { alertIds: number[] }) => p.alertIds),
      [[criticalAlert], [readonlyAlert]],
    );
    assert.ok(counted.downtimeRules.some((rule: { key: string }) => rule.key === 'disk.readonly'));
    assert.equal((await admin.delete(`/api/alert-rules/${created.body.id}`)).status, 204);
    const back = (await admin.get(path)).body;
    assert.equal(back.systems.find((s: { id: number }) => s.id === dbId).downMs, 2 * HOUR);
    assert.ok(!back.downtimeRules.some((rule: { key: string }) => rule.key === 'disk.readonly'));
  });

  it('defaults to this month so far, and marks time before the alert retention as unknown', async () => {
    const now = await admin.get(`/api/reports/availability?customer=${customer}`);
    assert.equal(now.status, 200);
    assert.equal(now.body.fromDate, '2026-11-01');
    assert.equal(now.body.toDate, '2026-11-10');
    assert.equal(now.body.to, clock.now().toISOString());
    const august = await admin.get(`/api/reports/availability?customer=${customer}&from=2026-08-01&to=2026-08-31`);
    assert.equal(august.status, 200);
    // 90 days of alert retention by default
    assert.equal(august.body.dataFrom, new Date(clock.now().getTime() - 90 * 24 * HOUR).toISOString());
    assert.ok(august.body.total.unknownMs > 0);
    assert.ok(august.body.systems[0].periods.some((p: { kind: string }) => p.kind === 'unknown'));
  });

  it('exports CSV with a row per system and per period, names defused for spreadsheets', async () => {
    await insertSystem(fixture.db.knex, customer, '=HYPERLINK("x")');
    const reply = await admin.get(`/api/reports/availability?customer=${customer}&${OCTOBER}&format=csv`);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(
      reply.headers.get('content-disposition') ?? '',
      /attachment; filename="availability-Muller-Hosting-2026-10-01-2026-10-31\.csv"/,
    );
    const lines = (reply.body as string).trim().split('\r\n');
    assert.equal(lines[0]?.split(',')[0], 'row');
    assert.ok(lines.some((line) => line.startsWith(`system,${webId},web-1,web,`)));
    assert.ok(
      lines.includes(
        `period,${webId},web-1,,,,,,,,down,2026-10-24T23:00:00.000Z,2026-10-25T02:00:00.000Z,${offlineAlert}`,
      ),
    );
    assert.ok(
      lines.some((line) => line.includes(`"'=HYPERLINK(""x"")"`)),
      'a formula is quoted as text',
    );
    assert.deepEqual(
      lines.filter((line) => line.startsWith('downtime_rule,')),
      ['downtime_rule,service.down,Service down,,,,,,,,,,,', 'downtime_rule,system.offline,System offline,,,,,,,,,,,'],
    );
  });

  it('exports a PDF with the customer, the period, the table and the timeline', async () => {
    const response = await fetch(
      `${fixture.server.url}/api/reports/availability?customer=${customer}&${OCTOBER}&format=pdf`,
      { headers: { cookie: admin.cookieHeader() } },
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    const parser = new PDFParse({ data: bytes });
    const { text } = await parser.getText();
    await parser.destroy();
    for (const expected of [
      'Müller Hosting',
      '2026-10-01 to 2026-10-31 (Europe/Berlin)',
      'web-1',
      'db-1',
      '99.583 %', // web-1: 718 / 721
      'Timeline',
      'Maintenance',
      'Counted as down: a system offline, or an open alert of Service down.',
    ])
      assert.ok(text.includes(expected), `${expected} in:\n${text}`);
  });

  it('shows a customer only to accounts that may see it (404 otherwise, never a 403 that tells it exists)', async () => {
    const db = fixture.db.knex;
    const path = `/api/reports/availability?customer=${customer}&${OCTOBER}`;
    assert.equal((await (await signedInAs(fixture.server.url, db, 'VIEWER', [customer])).get(path)).status, 200);
    assert.equal((await (await signedInAs(fixture.server.url, db, 'OPERATOR', [customer])).get(path)).status, 200);
    assert.equal((await (await signedInAs(fixture.server.url, db, 'VIEWER', [other])).get(path)).status, 404);
    assert.equal((await (await signedInAs(fixture.server.url, db, 'OPERATOR', [other])).get(path)).status, 404);
    assert.equal((await new Client(fixture.server.url).get(path)).status, 401);
    // an API token carries the account's grants
    const viewer = await createAccount(db, { role: 'VIEWER', customerIds: [other] });
    const browser = new Client(fixture.server.url);
    await browser.signIn(viewer.email, viewer.password);
    const token = (await browser.post('/api/tokens', { name: 'reports' })).body.token;
    const byToken = new Client(fixture.server.url);
    assert.equal((await byToken.get(path + '&format=pdf', bearer(token))).status, 404);
    assert.equal(
      (await byToken.get(`/api/reports/availability?customer=${other}&${OCTOBER}`, bearer(token))).status,
      200,
    );
  });

  it('refuses bad input naming the field', async () => {
    const base = `/api/reports/availability?customer=${customer}`;
    const cases: Array<[string, string]> = [
      ['/api/reports/availability', 'customer'],
      [`${base}&from=2026-02-30`, 'from'],
      [`${base}&from=2026-10-31&to=2026-10-01`, 'to'],
      [`${base}&format=xml`, 'format'],
      [`${base}&from=2024-01-01&to=2026-10-01`, 'to'],
      [`${base}&from=2027-01-01&to=2027-01-31`, 'from'],
    ];
    for (const [path, field] of cases) {
      const reply = await admin.get(path);
      assert.equal(reply.status, 400, `${path} → ${reply.status}`);
      assert.equal(reply.body.details?.field, field, `${path}: ${reply.body.error}`);
    }
  });

  it('keeps the monthly e-mail settings per customer, for its writers, in the audit log', async () => {
    const db = fixture.db.knex;
    const path = `/api/customers/${customer}/monthly-report`;
    const operator = await signedInAs(fixture.server.url, db, 'OPERATOR', [customer]);
    assert.deepEqual((await operator.get(path)).body, {
      customerId: customer,
      enabled: false,
      recipients: [],
      deliveries: [],
    });
    const saved = await operator.put(path, {
      enabled: true,
      recipients: ['IT@Customer.example', 'it@customer.example'],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual(saved.body.recipients, ['it@customer.example']);
    const audit = await db('audit_log').where({ action: 'customer.monthly_report.update' }).first();
    assert.equal(Number(audit.customer_id), customer);
    assert.deepEqual(audit.after, { enabled: true, recipients: ['it@customer.example'] });

    const bad = await operator.put(path, { enabled: true, recipients: ['not an address'] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details.field, 'recipients.0');
    const empty = await operator.put(path, { enabled: true, recipients: [] });
    assert.equal(empty.body.details.field, 'recipients');
    assert.equal(
      await db('audit_log')
        .where({ action: 'customer.monthly_report.update' })
        .count()
        .first()
        .then((r) => Number(r?.count)),
      1,
    );

    assert.equal((await (await signedInAs(fixture.server.url, db, 'VIEWER', [customer])).get(path)).status, 403);
    const stranger = await signedInAs(fixture.server.url, db, 'OPERATOR', [other]);
    assert.equal((await stranger.get(path)).status, 404);
    assert.equal((await stranger.put(path, { enabled: false, recipients: [] })).status, 404);
    assert.deepEqual((await admin.get(path)).body.recipients, ['it@customer.example']);
  });

  it('records when a customer was inactive, whoever switches it (a trigger keeps the history)', async () => {
    const db = fixture.db.knex;
    const id = await createCustomer(db, 'Seasonal');
    assert.equal((await admin.patch(`/api/customers/${id}`, { active: false })).status, 200);
    const open = await db('customer_inactive_periods').where({ customer_id: id });
    assert.equal(open.length, 1);
    assert.equal(open[0].ended_at, null);
    await db('customers').where({ id }).update({ active: true });
    const closed = await db('customer_inactive_periods').where({ customer_id: id });
    assert.equal(closed.length, 1);
    assert.ok(closed[0].ended_at instanceof Date);
  });
});
