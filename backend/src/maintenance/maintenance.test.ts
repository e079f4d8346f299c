import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { FakeClock } from '../lib/clock.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';

// a Sunday, 12:00 UTC = 13:00 in Berlin
const NOW = new Date('2026-11-22T12:00:00Z');

const ONCE = {
  name: 'Kernel upgrade',
  kind: 'once',
  startsAt: '2026-11-22T11:00:00Z',
  endsAt: '2026-11-22T13:00:00Z',
};
const WEEKLY = { name: 'Sunday backups', kind: 'weekly', weekdays: [0, 3], startTime: '02:00', durationMinutes: 90 };

describe('/api/maintenance-windows', () => {
  const fixture = useTestServer({}, { clock: new FakeClock(NOW) });
  let db: Knex;
  let mine: number;
  let theirs: number;
  let cluster: number;
  let web: number;
  let foreignSystem: number;
  let admin: Client;
  let operator: Client;
  let viewer: Client;
  let stranger: Client;
  const count = async () => Number((await db('maintenance_windows').count('* as n'))[0]?.n);

  async function signedIn(role: 'ADMIN' | 'OPERATOR' | 'VIEWER', customerIds: number[] = []) {
    const account = await createAccount(db, { role, customerIds });
    const client = new Client(fixture.server.url);
    await client.signIn(account.email, account.password);
    return client;
  }

  before(async () => {
    db = fixture.db.knex;
    mine = await createCustomer(db, 'Mine');
    await db('customers').where({ id: mine }).update({ time_zone: 'Europe/Berlin' });
    theirs = await createCustomer(db, 'Theirs');
    const [c] = await db('clusters').insert({ customer_id: mine, name: 'prod', enrollment_key: 'mk' }).returning('id');
    cluster = (c as { id: number }).id;
    const [s] = await db('systems').insert({ customer_id: mine, name: 'web-01' }).returning('id');
    web = (s as { id: number }).id;
    const [f] = await db('systems').insert({ customer_id: theirs, name: 'far-01' }).returning('id');
    foreignSystem = (f as { id: number }).id;
    admin = await signedIn('ADMIN');
    operator = await signedIn('OPERATOR', [mine]);
    viewer = await signedIn('VIEWER', [mine]);
    stranger = await signedIn('OPERATOR', [theirs]);
  });

  it('creates one-off and weekly windows at each scope, deriving the customer', async () => {
    const once = await operator.post('/api/maintenance-windows', { ...ONCE, scope: { type: 'system', id: web } });
    assert.equal(once.status, 201);
    assert.equal(once.body.customerId, mine);
    assert.equal(once.body.timeZone, 'Europe/Berlin');
    assert.deepEqual(once.body.scope, { type: 'system', id: web, name: 'web-01' });
    assert.equal(once.body.startsAt, '2026-11-22T11:00:00.000Z');
    assert.equal(once.body.weekdays, null);
    assert.equal(once.body.activeNow, true);
    assert.ok(once.body.createdBy.name);

    const weekly = await operator.post('/api/maintenance-windows', {
      ...WEEKLY,
      weekdays: [3, 0],
      scope: { type: 'cluster', id: cluster },
      startsAt: '2026-01-01T00:00:00Z',
    });
    assert.equal(weekly.status, 201);
    assert.deepEqual(weekly.body.weekdays, [0, 3], 'sorted');
    assert.equal(weekly.body.startsAt, null, "the other kind's fields are dropped");
    assert.equal(weekly.body.activeNow, false, '02:00–03:30 Berlin is not 13:00');

    const whole = await admin.post('/api/maintenance-windows', {
      ...WEEKLY,
      startTime: '12:30',
      scope: { type: 'customer', id: mine },
    });
    assert.equal(whole.body.activeNow, true, 'Sunday 12:30–14:00 Berlin covers 13:00 Berlin');

    const names = (await viewer.get('/api/maintenance-windows')).body.map((w: { name: string }) => w.name);
    assert.deepEqual(names.sort(), ['Kernel upgrade', 'Sunday backups', 'Sunday backups']);
    assert.equal((await viewer.get(`/api/maintenance-windows?customer=${theirs}`)).body.length, 0);
    assert.equal((await stranger.get('/api/maintenance-windows')).body.length, 0);
  });

  it('refuses invalid windows with the field named, storing nothing', async () => {
    const before = await count();
    const scope = { type: 'customer', id: mine };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ONCE, scope, name: ' ' }, 'name'],
      [{ ...ONCE, scope, kind: 'daily' }, 'kind'],
      [{ ...ONCE, scope, endsAt: ONCE.startsAt }, 'endsAt'],
      [{ ...ONCE, scope, startsAt: 'tomorrow' }, 'startsAt'],
      [{ ...ONCE, scope, endsAt: undefined }, 'endsAt'],
      [{ ...WEEKLY, scope, weekdays: [7] }, 'weekdays.0'],
      [{ ...WEEKLY, scope, weekdays: [] }, 'weekdays'],
      [{ ...WEEKLY, scope, weekdays: [1, 1] }, 'weekdays'],
      [{ ...WEEKLY, scope, startTime: '24:00' }, 'startTime'],
      [{ ...WEEKLY, scope, startTime: '2:00' }, 'startTime'],
      [{ ...WEEKLY, scope, durationMinutes: 10_081 }, 'durationMinutes'],
      [{ ...WEEKLY, scope, durationMinutes: 0 }, 'durationMinutes'],
      [{ ...WEEKLY, scope, durationMinutes: undefined }, 'durationMinutes'],
      [{ ...WEEKLY, scope: { type: 'planet', id: 1 } }, 'scope.type'],
      [{ ...WEEKLY, scope: { type: 'cluster', id: 999999 } }, 'scope.id'],
      [{ ...WEEKLY, scope: { type: 'system', id: 99999999999 } }, 'scope.id'],
      [{ ...WEEKLY }, 'scope'],
    ];
    for (const [body, field] of cases) {
      const reply = await admin.post('/api/maintenance-windows', body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.equal(reply.body.details?.field, field, JSON.stringify(body));
    }
    assert.equal(await count(), before);
  });

  it('checks rights: viewer 403, a foreign scope is not found, a foreign window 404', async () => {
    const before = await count();
    assert.equal(
      (await viewer.post('/api/maintenance-windows', { ...ONCE, scope: { type: 'customer', id: mine } })).status,
      403,
    );
    const foreign = await operator.post('/api/maintenance-windows', {
      ...ONCE,
      scope: { type: 'system', id: foreignSystem },
    });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.details.field, 'scope.id');
    assert.equal(await count(), before);

    const theirWindow = await stranger.post('/api/maintenance-windows', {
      ...ONCE,
      scope: { type: 'customer', id: theirs },
    });
    assert.equal(theirWindow.status, 201);
    const id = theirWindow.body.id;
    assert.equal((await operator.get(`/api/maintenance-windows/${id}`)).status, 404);
    assert.equal((await operator.patch(`/api/maintenance-windows/${id}`, { name: 'x' })).status, 404);
    assert.equal((await operator.delete(`/api/maintenance-windows/${id}`)).status, 404);
    assert.equal((await viewer.delete(`/api/maintenance-windows/${id}`)).status, 403);
    assert.equal((await admin.get(`/api/maintenance-windows/${id}`)).status, 200);
  });

  it('edits a window as a whole: switching kind needs the new fields, moving needs rights there', async () => {
    const created = await operator.post('/api/maintenance-windows', { ...ONCE, scope: { type: 'customer', id: mine } });
    const id = created.body.id;
    const incomplete = await operator.patch(`/api/maintenance-windows/${id}`, { kind: 'weekly' });
    assert.equal(incomplete.status, 400);
    assert.equal(incomplete.body.details.field, 'weekdays');
    const weekly = await operator.patch(`/api/maintenance-windows/${id}`, {
      kind: 'weekly',
      weekdays: [1],
      startTime: '22:15',
      durationMinutes: 120,
    });
    assert.equal(weekly.status, 200);
    assert.equal(weekly.body.kind, 'weekly');
    assert.equal(weekly.body.startsAt, null);
    assert.equal(weekly.body.startTime, '22:15');
    const away = await operator.patch(`/api/maintenance-windows/${id}`, { scope: { type: 'customer', id: theirs } });
    assert.equal(away.status, 400);
    const moved = await operator.patch(`/api/maintenance-windows/${id}`, { scope: { type: 'cluster', id: cluster } });
    assert.deepEqual(moved.body.scope, { type: 'cluster', id: cluster, name: 'prod' });
    assert.equal((await operator.patch(`/api/maintenance-windows/${id}`, { colour: 'red' })).status, 400);
    assert.equal((await operator.delete(`/api/maintenance-windows/${id}`)).status, 204);
    assert.equal((await operator.get(`/api/maintenance-windows/${id}`)).status, 404);
  });
});
