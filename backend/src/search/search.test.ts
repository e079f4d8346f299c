/** /api/search: names that contain what was typed, best first, within the caller's customers. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { FakeClock } from '../lib/clock.js';
import { createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { signedInAs, type Client } from '../testing/http.js';
import { CONTAINER_INDEX_MS } from './container-index.js';

describe('/api/search', () => {
  const clock = new FakeClock(new Date());
  const fixture = useTestServer({}, { clock });
  let db: Knex;
  let admin: Client;
  let viewer: Client;
  let resolvedAlert: number;

  async function system(customerId: number, name: string, hostname = `${name}.example.net`): Promise<number> {
    const [row] = await db('systems')
      .insert({ customer_id: customerId, name, hostname, status: 'ONLINE' })
      .returning<{ id: number }[]>('id');
    return row!.id;
  }
  async function alert(customerId: number, systemId: number, ruleKey: string, message: string, state = 'open') {
    const [row] = await db('alerts')
      .insert({
        rule_key: ruleKey,
        rule_kind: 'metric',
        system_id: systemId,
        customer_id: customerId,
        severity: 'WARNING',
        message,
        state,
        started_at: new Date(),
        ...(state === 'resolved' ? { resolved_at: new Date() } : {}),
      })
      .returning<{ id: string }[]>('id');
    return Number(row!.id);
  }
  const names = (list: { name?: string; systemName?: string }[]) => list.map((x) => x.name ?? x.systemName);

  before(async () => {
    db = fixture.db.knex;
    const acme = await createCustomer(db, 'Acme Web');
    const globex = await createCustomer(db, 'Globex');
    const db01 = await system(acme, 'db-01');
    await system(acme, 'web-db-backup');
    await system(acme, 'mail-01', 'relay.db.example.net');
    const secret = await system(globex, 'db-secret');
    await alert(acme, db01, 'disk.full', 'Disk / is 97% full');
    resolvedAlert = await alert(acme, db01, 'cpu.high', 'CPU at 99%', 'resolved');
    await alert(globex, secret, 'disk.full', 'Disk / is 99% full on db-secret');
    admin = await signedInAs(fixture.server.url, db, 'ADMIN');
    viewer = await signedInAs(fixture.server.url, db, 'VIEWER', [acme]);
  });

  it('finds systems by name or hostname, a name starting with the term first, and their customer', async () => {
    const found = await admin.get('/api/search?q=DB');
    assert.equal(found.status, 200);
    assert.deepEqual(names(found.body.systems), ['db-01', 'db-secret', 'mail-01', 'web-db-backup']);
    assert.equal(found.body.systems[0].customerName, 'Acme Web');
    assert.equal(found.body.systems[0].status, 'ONLINE');
  });

  it('shows a viewer only what their customers hold', async () => {
    const found = await viewer.get('/api/search?q=db');
    assert.deepEqual(names(found.body.systems), ['db-01', 'mail-01', 'web-db-backup']);
    assert.deepEqual(names(found.body.alerts), ['db-01']);
    assert.deepEqual((await viewer.get('/api/search?q=globex')).body.customers, []);
    assert.deepEqual((await viewer.get(`/api/search?q=%23${resolvedAlert + 1}`)).body.alerts, []);
  });

  it('finds customers, open alerts by rule or message, and any alert by its number', async () => {
    assert.deepEqual(names((await admin.get('/api/search?q=acme')).body.customers), ['Acme Web']);
    const disk = await admin.get('/api/search?q=disk.full');
    assert.deepEqual(disk.body.alerts.map((a: { ruleKey: string }) => a.ruleKey).sort(), ['disk.full', 'disk.full']);
    assert.deepEqual((await admin.get('/api/search?q=99%25')).body.alerts.length, 1, 'the open one, not the resolved');
    const byNumber = await admin.get(`/api/search?q=%23${resolvedAlert}`);
    assert.deepEqual(
      byNumber.body.alerts.map((a: { id: number; state: string }) => [a.id, a.state]),
      [[resolvedAlert, 'resolved']],
    );
  });

  it("gives each alert its customer's time zone, for the times in its message", async () => {
    await db('customers').where({ name: 'Acme Web' }).update({ time_zone: 'Asia/Tokyo' });
    const disk = await admin.get('/api/search?q=disk.full');
    const zones = Object.fromEntries(
      disk.body.alerts.map((a: { message: string; timeZone: string }) => [a.message, a.timeZone]),
    );
    assert.deepEqual(zones, { 'Disk / is 97% full': 'Asia/Tokyo', 'Disk / is 99% full on db-secret': 'UTC' });
  });

  it('finds containers by name or image on the systems that sent them in the last day', async () => {
    const [db01, secret] = await Promise.all(
      ['db-01', 'db-secret'].map(async (name) => (await db('systems').where({ name }).first<{ id: number }>('id')).id),
    );
    const now = new Date();
    const latest = (systemId: number, name: string, instance: string, value: number, time = now) =>
      db('metric_latest').insert({ system_id: systemId, name, instance, time, value });
    await latest(db01!, 'container.running', 'pgbouncer', 1);
    await latest(db01!, 'container.cpu_pct', 'pgbouncer', 12);
    await latest(db01!, 'container.running', 'app-pgbackup', 0);
    // removed two days ago: the newest values still hold it
    await latest(db01!, 'container.running', 'pg-old', 1, new Date(now.getTime() - 2 * 86_400_000));
    await latest(db01!, 'disk.used_pct', '/var/lib/pg', 50);
    await latest(secret!, 'container.running', 'pg-secret', 1);
    await latest(db01!, 'container.running', 'cache', 1);
    await db('container_images').insert([
      { system_id: db01, name: 'pgbouncer', image: 'edoburu/pgbouncer:1.23', reported_at: now },
      { system_id: db01, name: 'cache', image: 'registry.example/team/PGcache:7', reported_at: now },
    ]);
    // the searches before read the container index already: it is read again once it is this old
    clock.advance(CONTAINER_INDEX_MS);

    const found = await admin.get('/api/search?q=PG');
    assert.equal(found.status, 200);
    assert.deepEqual(found.body.containers, [
      { name: 'pg-secret', image: null, systemId: secret, systemName: 'db-secret', running: true },
      { name: 'pgbouncer', image: 'edoburu/pgbouncer:1.23', systemId: db01, systemName: 'db-01', running: true },
      { name: 'app-pgbackup', image: null, systemId: db01, systemName: 'db-01', running: false },
      // by its image only: after the names that match
      { name: 'cache', image: 'registry.example/team/PGcache:7', systemId: db01, systemName: 'db-01', running: true },
    ]);
    assert.deepEqual(names((await viewer.get('/api/search?q=pg')).body.containers), [
      'pgbouncer',
      'app-pgbackup',
      'cache',
    ]);
    assert.deepEqual(names((await admin.get('/api/search?q=edoburu')).body.containers), ['pgbouncer']);

    // a container started since is found once the index is read again, not at every keystroke before
    await latest(db01!, 'container.running', 'pg-new', 1, clock.now());
    assert.deepEqual(names((await admin.get('/api/search?q=pg-n')).body.containers), []);
    clock.advance(CONTAINER_INDEX_MS);
    assert.deepEqual(names((await admin.get('/api/search?q=pg-n')).body.containers), ['pg-new']);
  });

  it('takes % and _ literally', async () => {
    const found = await admin.get('/api/search?q=_');
    assert.deepEqual(found.body.systems, []);
    assert.deepEqual(found.body.customers, []);
  });

  it('names a missing or too long term', async () => {
    const missing = await admin.get('/api/search?q=%20');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /^q: is required/);
    const long = await admin.get(`/api/search?q=${'x'.repeat(101)}`);
    assert.equal(long.status, 400);
    assert.match(long.body.error, /^q: must be at most 100 characters/);
  });
});
