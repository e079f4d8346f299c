/**
 * GET /api/overview and the live snapshot `overview`: the aggregates per customer
 * and for the fleet, alert-minutes over the last 24 h on a fake clock, what a viewer sees, and the
 * snapshot re-pushed after a change. Real server, PostgreSQL, Redis and `ws` client.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { FakeClock } from '../lib/clock.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { bearer, Client, signedInAs } from '../testing/http.js';
import { LiveClient, type Frame } from '../testing/live-client.js';
import { liveFixtures } from '../testing/live-fixtures.js';
import { overview as overviewSchema, type Overview, type OverviewCustomer } from '../../../contracts/overview.js';

const NOW = new Date('2026-06-10T12:00:00.000Z');
const MINUTE = 60_000;
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * MINUTE);

describe('/api/overview', () => {
  const clock = new FakeClock(NOW);
  const t = useTestServer({}, { clock });
  const { tokenOf } = liveFixtures(t);
  let db: Knex;
  let admin: Client;
  let viewer: Client;
  let acme: number;
  let globex: number;
  let ids: Record<string, number>;

  async function system(customerId: number, name: string, status: string, clusterId: number | null = null) {
    const [row] = await db('systems')
      .insert({ customer_id: customerId, cluster_id: clusterId, name, hostname: `${name}.example.net`, status })
      .returning<{ id: number }[]>('id');
    return row!.id;
  }
  async function alert(systemId: number, customerId: number, severity: string, startedAt: Date, resolvedAt?: Date) {
    await db('alerts').insert({
      rule_key: `rule.${Math.random()}`,
      rule_kind: 'metric',
      system_id: systemId,
      customer_id: customerId,
      severity,
      message: 'test',
      state: resolvedAt ? 'resolved' : 'open',
      started_at: startedAt,
      resolved_at: resolvedAt ?? null,
    });
  }
  const customerIn = (body: Overview, id: number) => body.customers.find((c) => c.id === id) as OverviewCustomer;

  before(async () => {
    db = t.db.knex;
    acme = await createCustomer(db, 'Acme');
    globex = await createCustomer(db, 'Globex');
    const [cluster] = await db('clusters')
      .insert({ customer_id: acme, name: 'web', enrollment_key: 'overview-test-enrollment-key-000001' })
      .returning<{ id: number }[]>('id');
    ids = {
      web1: await system(acme, 'web-01', 'ONLINE', cluster!.id),
      web2: await system(acme, 'web-02', 'CRITICAL', cluster!.id),
      db1: await system(acme, 'db-01', 'WARNING'),
      mail: await system(acme, 'mail-01', 'OFFLINE'),
      secret: await system(globex, 'secret-01', 'CRITICAL'),
    };
    // web-02: open for 90 minutes (still open) + one that began 2 days ago and ended 30 min into
    // the window (only those 30 count) = 120 alert-minutes
    await alert(ids.web2!, acme, 'CRITICAL', ago(90));
    await alert(ids.web2!, acme, 'WARNING', ago(48 * 60), ago(24 * 60 - 30));
    // db-01: 45 minutes, resolved inside the window; and one entirely before the window (0)
    await alert(ids.db1!, acme, 'WARNING', ago(100), ago(55));
    await alert(ids.db1!, acme, 'CRITICAL', ago(30 * 60), ago(25 * 60));
    // mail-01: an INFO alert open for 10 minutes; web-01: an alert starting after "now" is ignored
    await alert(ids.mail!, acme, 'INFO', ago(10));
    await alert(ids.web1!, acme, 'WARNING', new Date(NOW.getTime() + 5 * MINUTE));
    await alert(ids.secret!, globex, 'CRITICAL', ago(600));
    // a weekly window covering the web cluster now (Wednesday 12:00 UTC), one for mail-01 next week
    await db('maintenance_windows').insert([
      {
        customer_id: acme,
        scope_type: 'cluster',
        scope_id: cluster!.id,
        name: 'Wednesday patching',
        kind: 'weekly',
        weekdays: [3],
        start_time: '11:00',
        duration_minutes: 120,
      },
      {
        customer_id: acme,
        scope_type: 'system',
        scope_id: ids.mail,
        name: 'Later',
        kind: 'once',
        starts_at: new Date(NOW.getTime() + 7 * 24 * 60 * MINUTE),
        ends_at: new Date(NOW.getTime() + 8 * 24 * 60 * MINUTE),
      },
    ]);
    const [incident] = await db('incidents')
      .insert({ customer_id: acme, cluster_id: cluster!.id, title: 'Site down: web', started_at: ago(20) })
      .returning<{ id: string }[]>('id');
    await db('alerts').where({ system_id: ids.web2 }).update({ incident_id: incident!.id });
    admin = await signedInAs(t.server.url, db, 'ADMIN');
    viewer = await signedInAs(t.server.url, db, 'VIEWER', [acme]);
  });

  it('counts systems by status, open alerts by severity and systems in maintenance, per customer and in total', async () => {
    const reply = await admin.get('/api/overview');
    assert.equal(reply.status, 200);
    const body = overviewSchema.parse(reply.body);
    assert.deepEqual(
      body.customers.map((c) => c.name),
      ['Acme', 'Globex'],
    );
    const a = customerIn(body, acme);
    assert.equal(a.systems, 4);
    assert.deepEqual(a.byStatus, { PENDING: 0, ONLINE: 1, WARNING: 1, CRITICAL: 1, OFFLINE: 1, STANDBY: 0 });
    // open: web-02 CRITICAL, mail-01 INFO, and web-01's WARNING (open, though it starts in the future)
    assert.deepEqual(a.openAlerts, { critical: 1, warning: 1, info: 1 });
    assert.equal(a.inMaintenance, 2, 'web-01 and web-02 through their cluster; mail-01 only next week');
    assert.deepEqual(body.totals, {
      customers: 2,
      systems: 5,
      byStatus: { PENDING: 0, ONLINE: 1, WARNING: 1, CRITICAL: 2, OFFLINE: 1, STANDBY: 0 },
      openAlerts: { critical: 2, warning: 1, info: 1 },
      inMaintenance: 2,
      openIncidents: 1,
    });
  });

  it('ranks the worst offenders by alert-minutes in the last 24 hours, open ones up to now', async () => {
    const a = customerIn(overviewSchema.parse((await admin.get('/api/overview')).body), acme);
    assert.deepEqual(
      a.worstOffenders.map((w) => [w.systemName, w.alertMinutes, w.status]),
      [
        ['web-02', 120, 'CRITICAL'],
        ['db-01', 45, 'WARNING'],
        ['mail-01', 10, 'OFFLINE'],
      ],
    );
    assert.equal(a.worstOffenders[0]!.systemId, ids.web2);
    clock.advance(30 * MINUTE);
    try {
      const later = customerIn(overviewSchema.parse((await admin.get('/api/overview')).body), acme);
      // web-02's open alert grew by 30 and its old one left the window; db-01's stays inside it;
      // web-01's alert has now begun (25 minutes ago)
      assert.deepEqual(
        later.worstOffenders.map((w) => [w.systemName, w.alertMinutes]),
        [
          ['web-02', 120],
          ['db-01', 45],
          ['mail-01', 40],
          ['web-01', 25],
        ],
      );
    } finally {
      clock.set(NOW);
    }
  });

  it('lists open incidents with their open alerts', async () => {
    const body = overviewSchema.parse((await admin.get('/api/overview')).body);
    assert.deepEqual(
      body.incidents.map((i) => [i.title, i.customerName, i.clusterName, i.openAlerts, i.startedAt]),
      [['Site down: web', 'Acme', 'web', 1, ago(20).toISOString()]],
    );
  });

  it('shows a viewer only the customers granted to them', async () => {
    const body = overviewSchema.parse((await viewer.get('/api/overview')).body);
    assert.deepEqual(
      body.customers.map((c) => c.name),
      ['Acme'],
    );
    assert.equal(body.totals.systems, 4);
    assert.deepEqual(body.totals.openAlerts, { critical: 1, warning: 1, info: 1 });
    assert.ok(!JSON.stringify(body).includes('secret-01'));
    const stranger = await signedInAs(t.server.url, db, 'VIEWER', []);
    const nothing = overviewSchema.parse((await stranger.get('/api/overview')).body);
    assert.deepEqual([nothing.customers, nothing.incidents, nothing.totals.systems], [[], [], 0]);
  });

  it('is refused without a sign-in', async () => {
    assert.equal((await new Client(t.server.url).get('/api/overview')).status, 401);
  });

  it('pushes the same shape live, again after a change, and only the granted customers', async () => {
    const live = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(viewer)).token) });
    try {
      const first = (await live.subscribe('ov', 'overview')) as Frame;
      const initial = overviewSchema.parse(first['data']);
      assert.deepEqual(initial, overviewSchema.parse((await viewer.get('/api/overview')).body));
      assert.deepEqual(
        initial.customers.map((c) => c.name),
        ['Acme'],
      );

      // a window over db-01 made through the API: the snapshot follows (the `maintenance` change)
      const window = await admin.post('/api/maintenance-windows', {
        name: 'Now',
        kind: 'once',
        startsAt: ago(5).toISOString(),
        endsAt: new Date(NOW.getTime() + 60 * MINUTE).toISOString(),
        scope: { type: 'system', id: ids.db1 },
      });
      assert.equal(window.status, 201, JSON.stringify(window.body));
      const moved = await live.next(
        (f) => f['t'] === 'snap' && f['sid'] === 'ov' && f['data'].totals.inMaintenance === 3,
        5_000,
      );
      assert.equal(customerIn(overviewSchema.parse(moved['data']), acme).inMaintenance, 3);

      // a new alert at Acme, announced as the evaluation run does: the counts follow
      await alert(ids.db1!, acme, 'CRITICAL', ago(1));
      await t.server.bus.publish('alert', { type: 'raised', alert: { id: 999_999, customerId: acme } });
      await live.next((f) => f['t'] === 'snap' && f['sid'] === 'ov' && f['data'].totals.openAlerts.critical === 2);
      assert.ok(!live.frames.some((f) => JSON.stringify(f).includes('secret-01')));
    } finally {
      live.close();
    }
  });

  it('computes once at open: the snapshot takes the answer of the GET just before it, until a change is announced', async () => {
    const live = await LiveClient.open(t.server.url, { headers: bearer((await tokenOf(admin)).token) });
    const names = (body: unknown) => overviewSchema.parse(body).customers.map((c) => c.name);
    try {
      const answered = (await admin.get('/api/overview')).body;
      // a customer added behind the server's back (SQL, no event): only a new computation shows it
      await createCustomer(db, 'Hidden Ltd');
      const first = (await live.subscribe('ov', 'overview')) as Frame;
      assert.deepEqual(first['data'], answered, 'the snapshot took the computation of the GET');
      assert.ok(names((await admin.get('/api/overview')).body).includes('Hidden Ltd'), 'HTTP always computes');

      // a customer made through the API announces the change: the snapshot computes afresh
      assert.equal((await admin.post('/api/customers', { name: 'Loud Ltd' })).status, 201);
      const after = await live.next(
        (f) => f['t'] === 'snap' && f['sid'] === 'ov' && names(f['data']).includes('Loud Ltd'),
        5_000,
      );
      assert.ok(names(after['data']).includes('Hidden Ltd'));
    } finally {
      live.close();
    }
  });
});
