/**
 * Maintenance windows keep their history (db/migrations/0017): a report uses each window as it was
 * defined at each moment, so editing or deleting a window later leaves past reports as they were.
 * Over the real server on a fake clock, for a Berlin customer across the October change to CET.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Knex } from 'knex';
import { FakeClock } from '../lib/clock.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const clock = new FakeClock(new Date('2026-09-15T12:00:00Z'));

interface ReportPeriod {
  kind: string;
  from: string;
  to: string;
}
interface ReportSystem {
  periodMs: number;
  maintenanceMs: number;
  monitoredMs: number;
  periods: ReportPeriod[];
}

const maintenanceOf = (system: ReportSystem) =>
  system.periods.filter((p) => p.kind === 'maintenance').map((p) => [p.from, p.to]);

describe('availability with the history of maintenance windows', () => {
  const fixture = useTestServer({}, { clock });
  let db: Knex;
  let customer: number;
  let system: number;
  let sundays: number;
  let email: string;
  let password: string;
  let earlyOctober: Record<string, unknown>;

  /** A fresh session at the clock's present (months pass between the steps). */
  async function admin(): Promise<Client> {
    const client = new Client(fixture.server.url);
    await client.signIn(email, password);
    return client;
  }

  async function report(range: string): Promise<{ body: Record<string, unknown>; system: ReportSystem }> {
    const reply = await (await admin()).get(`/api/reports/availability?customer=${customer}&${range}`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return { body: reply.body, system: (reply.body['systems'] as ReportSystem[])[0] as ReportSystem };
  }

  const withoutGeneratedAt = (body: Record<string, unknown>) => ({ ...body, generatedAt: undefined });

  it('sets up a Berlin customer with one system and a Sunday 02:00 window made on 15 September', async () => {
    db = fixture.db.knex;
    customer = await createCustomer(db, 'Berlin GmbH');
    await db('customers').where({ id: customer }).update({ time_zone: 'Europe/Berlin' });
    const [row] = await db('systems')
      .insert({ customer_id: customer, name: 'db-1', hostname: 'db-1', created_at: '2026-01-01T00:00Z' })
      .returning<{ id: number }[]>('id');
    system = (row as { id: number }).id;
    ({ email, password } = await createAccount(db, { role: 'ADMIN' }));
    const created = await (
      await admin()
    ).post('/api/maintenance-windows', {
      name: 'patching',
      scope: { type: 'system', id: system },
      kind: 'weekly',
      weekdays: [0],
      startTime: '02:00',
      durationMinutes: 60,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    sundays = created.body.id;
    const versions = await db('maintenance_window_versions').where({ window_id: sundays });
    assert.deepEqual(
      versions.map((v) => [v.valid_from.toISOString(), v.valid_to]),
      [['2026-09-15T12:00:00.000Z', null]],
    );
  });

  it('does not count a window before it was made', async () => {
    clock.set(new Date('2026-10-20T11:00:00Z'));
    const september = await report('from=2026-09-01&to=2026-09-30');
    // Sundays 6, 13, 20 and 27 September at 02:00 CEST: only the 20th and 27th are after the window was made
    assert.deepEqual(maintenanceOf(september.system), [
      ['2026-09-20T00:00:00.000Z', '2026-09-20T01:00:00.000Z'],
      ['2026-09-27T00:00:00.000Z', '2026-09-27T01:00:00.000Z'],
    ]);
  });

  it('keeps a past report when the window is edited: the old schedule before the edit, the new after', async () => {
    const first = await report('from=2026-10-01&to=2026-10-19');
    earlyOctober = first.body;
    assert.equal(first.system.maintenanceMs, 3 * HOUR, 'the 4th, 11th and 18th at 02:00');
    clock.set(new Date('2026-10-20T12:00:00Z'));
    const renamed = await (await admin()).patch(`/api/maintenance-windows/${sundays}`, { name: 'patching (db)' });
    assert.equal(renamed.status, 200);
    assert.equal(
      Number((await db('maintenance_window_versions').where({ window_id: sundays }).count('* as n'))[0]?.n),
      1,
      'a new name is no new definition',
    );
    const edited = await (
      await admin()
    ).patch(`/api/maintenance-windows/${sundays}`, { startTime: '02:30', durationMinutes: 90 });
    assert.equal(edited.status, 200);
    assert.deepEqual(
      withoutGeneratedAt((await report('from=2026-10-01&to=2026-10-19')).body),
      withoutGeneratedAt(earlyOctober),
    );
  });

  it('keeps past occurrences of a deleted window, and counts none after the delete', async () => {
    clock.set(new Date('2026-11-05T12:00:00Z'));
    assert.equal((await (await admin()).delete(`/api/maintenance-windows/${sundays}`)).status, 204);
    clock.set(new Date('2026-11-10T12:00:00Z'));

    const october = await report('from=2026-10-01&to=2026-10-31');
    // 02:00 CEST on the 4th, 11th and 18th; after the edit 02:30 for 90 minutes, on the 25th at the
    // first 02:30 (CEST, 00:30Z) across the repeated hour to 03:00 CET (02:00Z)
    assert.deepEqual(maintenanceOf(october.system), [
      ['2026-10-04T00:00:00.000Z', '2026-10-04T01:00:00.000Z'],
      ['2026-10-11T00:00:00.000Z', '2026-10-11T01:00:00.000Z'],
      ['2026-10-18T00:00:00.000Z', '2026-10-18T01:00:00.000Z'],
      ['2026-10-25T00:30:00.000Z', '2026-10-25T02:00:00.000Z'],
    ]);
    assert.equal(october.system.periodMs, 745 * HOUR);
    assert.equal(october.system.maintenanceMs, 4.5 * HOUR);
    assert.equal(october.system.monitoredMs, 740.5 * HOUR);
    assert.deepEqual(
      withoutGeneratedAt((await report('from=2026-10-01&to=2026-10-19')).body),
      withoutGeneratedAt(earlyOctober),
    );

    // 1 November 02:30 CET (01:30Z) happened before the delete; 8 November did not
    const november = await report('from=2026-11-01&to=2026-11-09');
    assert.deepEqual(maintenanceOf(november.system), [['2026-11-01T01:30:00.000Z', '2026-11-01T03:00:00.000Z']]);
    assert.equal(november.system.maintenanceMs, 90 * MINUTE);
  });

  it('cuts an occurrence at an edit made during it', async () => {
    const created = await (
      await admin()
    ).post('/api/maintenance-windows', {
      name: 'saturday',
      scope: { type: 'customer', id: customer },
      kind: 'weekly',
      weekdays: [6],
      startTime: '03:00',
      durationMinutes: 120,
    });
    assert.equal(created.status, 201);
    // Saturday 21 November 04:00 CET, halfway through 03:00–05:00: shortened to 30 minutes
    clock.set(new Date('2026-11-21T03:00:00Z'));
    const shortened = await (
      await admin()
    ).patch(`/api/maintenance-windows/${created.body.id}`, { durationMinutes: 30 });
    assert.equal(shortened.status, 200);
    clock.set(new Date('2026-11-30T12:00:00Z'));

    const november = await report('from=2026-11-01&to=2026-11-29');
    assert.deepEqual(maintenanceOf(november.system), [
      ['2026-11-01T01:30:00.000Z', '2026-11-01T03:00:00.000Z'],
      ['2026-11-14T02:00:00.000Z', '2026-11-14T04:00:00.000Z'],
      // the old definition was in force until the edit at 03:00Z, the new one's 30 minutes were over by then
      ['2026-11-21T02:00:00.000Z', '2026-11-21T03:00:00.000Z'],
      ['2026-11-28T02:00:00.000Z', '2026-11-28T02:30:00.000Z'],
    ]);
    assert.equal(november.system.maintenanceMs, 5 * HOUR);
  });

  it('records changes made outside the API too, at the database time', async () => {
    const [row] = await db('maintenance_windows')
      .insert({
        customer_id: customer,
        scope_type: 'customer',
        scope_id: customer,
        name: 'by hand',
        kind: 'once',
        starts_at: '2026-12-01T00:00Z',
        ends_at: '2026-12-01T01:00Z',
        created_at: '2026-11-01T00:00Z',
      })
      .returning<{ id: number }[]>('id');
    const id = (row as { id: number }).id;
    const before = Date.now();
    await db('maintenance_windows').where({ id }).update({ ends_at: '2026-12-01T02:00Z' });
    await db('maintenance_windows').where({ id }).delete();
    const versions = await db('maintenance_window_versions').where({ window_id: id }).orderBy('valid_from');
    assert.equal(versions.length, 2);
    assert.equal(versions[0].valid_from.toISOString(), '2026-11-01T00:00:00.000Z');
    assert.ok(versions[0].valid_to.getTime() >= before - 5_000, 'closed at the database now()');
    assert.equal(versions[1].ends_at.toISOString(), '2026-12-01T02:00:00.000Z');
    assert.ok(versions[1].valid_to !== null, 'closed by the delete');
  });
});
