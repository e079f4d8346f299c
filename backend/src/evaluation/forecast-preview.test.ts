/**
 * Forecast rules through the API: created and checked like any alert rule (a horizon, rising or
 * falling only), and the preview listing the systems that would fire now with their projected times,
 * soonest first, only those an account may see.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { ensureDefaultRules } from '../../../db/seed-rules.js';
import { FakeClock } from '../lib/clock.js';
import { createAccount, createCustomer } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { HOUR, writeDiskHistory } from '../testing/disk-history.js';
import { createForecastRepo } from './forecast-repo.js';
import { Client } from '../testing/http.js';

const NOW = new Date('2026-11-23T12:00:00Z');

describe('forecast rules through the API', () => {
  const fixture = useTestServer({}, { clock: new FakeClock(NOW) });
  let db: Knex;
  let admin: Client;
  let viewer: Client;

  async function system(customerId: number, name: string): Promise<number> {
    const [row] = await db('systems')
      .insert({ customer_id: customerId, name, hostname: name, last_seen_at: NOW, status: 'ONLINE' })
      .returning('id');
    return (row as { id: number }).id;
  }

  async function signedIn(role: 'ADMIN' | 'VIEWER', customerIds: number[] = []) {
    const account = await createAccount(db, { role, customerIds });
    const client = new Client(fixture.server.url);
    await client.signIn(account.email, account.password);
    return client;
  }

  before(async () => {
    db = fixture.db.knex;
    await ensureDefaultRules(db);
    const mine = await createCustomer(db, 'Mine');
    const theirs = await createCustomer(db, 'Theirs');
    const since = new Date(NOW.getTime() - 30 * HOUR);
    // 1 % an hour from 20 %: 100 % in about 50 h; 2 % an hour from 30 %: in about 5 h
    await writeDiskHistory(db, await system(mine, 'slow-01'), '/data', since, NOW, (h) => 20 + h);
    await writeDiskHistory(db, await system(mine, 'fast-01'), '/', since, NOW, (h) => 30 + 2 * h);
    await writeDiskHistory(db, await system(theirs, 'other-01'), '/', since, NOW, (h) => 30 + 2 * h);
    // flat, and a fresh system filling fast: neither would fire
    await writeDiskHistory(db, await system(mine, 'flat-01'), '/', since, NOW, () => 60);
    await writeDiskHistory(
      db,
      await system(mine, 'fresh-01'),
      '/',
      new Date(NOW.getTime() - 5 * HOUR),
      NOW,
      (h) => 60 + 5 * h,
    );
    admin = await signedIn('ADMIN');
    viewer = await signedIn('VIEWER', [mine]);
  });

  const listed = (reply: {
    body: { systems: { systemName: string; instance: string; projectedAt: string | null }[] };
  }) => reply.body.systems.map((s) => `${s.systemName}${s.instance} ${s.projectedAt}`);

  it('previews the seeded forecasts with the projected times, soonest first, to whoever may see the systems', async () => {
    const warning = (await db('alert_rules').where({ key: 'disk.forecast' }).first('id')).id;
    const asAdmin = await admin.get(`/api/alert-rules/${warning}/preview`);
    assert.equal(asAdmin.status, 200);
    // hourly means sit 7.5 minutes behind the line's points: 5 h and 50 h, 7.5 minutes on
    assert.deepEqual(listed(asAdmin), [
      'fast-01/ 2026-11-23T17:07:30.000Z',
      'other-01/ 2026-11-23T17:07:30.000Z',
      'slow-01/data 2026-11-25T14:07:30.000Z',
    ]);
    assert.match(asAdmin.body.note, /hourly rollup/);
    assert.deepEqual(listed(await viewer.get(`/api/alert-rules/${warning}/preview`)), [
      'fast-01/ 2026-11-23T17:07:30.000Z',
      'slow-01/data 2026-11-25T14:07:30.000Z',
    ]);
    const critical = (await db('alert_rules').where({ key: 'disk.forecast_critical' }).first('id')).id;
    assert.deepEqual(listed(await admin.get(`/api/alert-rules/${critical}/preview`)), [
      'fast-01/ 2026-11-23T17:07:30.000Z',
      'other-01/ 2026-11-23T17:07:30.000Z',
    ]);
  });

  it("answers a system's stored lines with the projection of its farthest-looking rule, to whoever sees the system", async () => {
    // the lines as a run stores them, fitted through the last whole hour
    const ids = await db('systems').pluck('id');
    const forecasts = createForecastRepo(db);
    await forecasts.refitLines('disk.used_pct', ids, NOW, 24);
    const idOf = async (name: string) => (await db('systems').where({ name }).first('id')).id as number;

    const fast = await viewer.get(`/api/systems/${await idOf('fast-01')}/forecasts`);
    assert.equal(fast.status, 200);
    assert.equal(fast.body.windowHours, 24);
    const [line, ...others] = fast.body.lines;
    assert.equal(others.length, 0);
    assert.equal(line.metric, 'disk.used_pct');
    assert.equal(line.instance, '/');
    assert.equal(line.ruleKey, 'disk.forecast', 'the 72 h warning looks farther than the 24 h critical');
    assert.equal(line.horizonSeconds, 72 * 3600);
    assert.equal(line.threshold, 100);
    assert.equal(line.direction, 1);
    assert.equal(line.enoughData, true);
    assert.equal(line.through, NOW.toISOString());
    assert.ok(Math.abs(line.slopePerHour - 2) < 1e-9, String(line.slopePerHour));
    assert.equal(line.projectedAt, '2026-11-23T17:07:30.000Z', 'as the preview and the run say');
    assert.match(line.text, /^Disk used on \/ reaches 100 % in 5 h 7 min, around Mon 17:10$/);

    const flat = (await viewer.get(`/api/systems/${await idOf('flat-01')}/forecasts`)).body.lines;
    assert.deepEqual(
      flat.map((l: { projectedAt: string | null; text: string | null; enoughData: boolean }) => [
        l.projectedAt,
        l.text,
        l.enoughData,
      ]),
      [[null, null, true]],
      'flat: a line, but no crossing',
    );
    const fresh = (await viewer.get(`/api/systems/${await idOf('fresh-01')}/forecasts`)).body.lines;
    assert.equal(fresh[0].enoughData, false, 'five hours of a day: too few');
    assert.equal(fresh[0].projectedAt, null);

    const other = await idOf('other-01');
    assert.equal((await viewer.get(`/api/systems/${other}/forecasts`)).status, 404, 'not a system it may see');
    assert.equal((await admin.get(`/api/systems/${other}/forecasts`)).body.lines.length, 1);
  });

  it('previews and creates an unsaved forecast rule; refuses one without a horizon or with another operator', async () => {
    const draft = {
      key: 'disk.forecast_week',
      kind: 'forecast',
      name: 'Disk full within a week',
      severity: 'INFO',
      metric: 'disk.used_pct',
      instanceGlob: '/data*',
      threshold: 100,
      horizonSeconds: 7 * 24 * 3600,
    };
    const preview = await admin.post('/api/alert-rules/preview', draft);
    assert.equal(preview.status, 200);
    assert.deepEqual(listed(preview), ['slow-01/data 2026-11-25T14:07:30.000Z']);

    const noHorizon = await admin.post('/api/alert-rules', { ...draft, horizonSeconds: null });
    assert.equal(noHorizon.status, 400);
    assert.equal(noHorizon.body.details.field, 'horizonSeconds');
    const above = await admin.post('/api/alert-rules', { ...draft, operator: '>' });
    assert.equal(above.status, 400);
    assert.equal(above.body.details.field, 'operator');
    const onMetric = await admin.post('/api/alert-rules', { ...draft, kind: 'metric', operator: '>' });
    assert.equal(onMetric.status, 400);
    assert.equal(onMetric.body.details.field, 'horizonSeconds');

    const created = await admin.post('/api/alert-rules', draft);
    assert.equal(created.status, 201);
    assert.equal(created.body.kind, 'forecast');
    assert.equal(created.body.operator, '>=', 'rises to its threshold unless told');
    assert.equal(created.body.horizonSeconds, 604_800);
    const changeKind = await admin.patch(`/api/alert-rules/${created.body.id}`, { kind: 'metric' });
    assert.equal(changeKind.status, 400);
    const shorter = await admin.patch(`/api/alert-rules/${created.body.id}`, { horizonSeconds: 3600 });
    assert.equal(shorter.status, 200);
    assert.deepEqual(listed(await admin.get(`/api/alert-rules/${created.body.id}/preview`)), []);
  });

  it('lets an administrator shorten the window: a fresh system then has enough hours to be forecast', async () => {
    const warning = (await db('alert_rules').where({ key: 'disk.forecast' }).first('id')).id;
    assert.deepEqual((await admin.get('/api/settings/forecasts')).body, { windowHours: 24, minShare: 0.75 });
    assert.equal((await viewer.get('/api/settings/forecasts')).status, 403);
    const bad = await admin.put('/api/settings/forecasts', { windowHours: 2, minShare: 0.5 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details.field, 'windowHours');

    const saved = await admin.put('/api/settings/forecasts', { windowHours: 6, minShare: 0.5 });
    assert.equal(saved.status, 200);
    assert.deepEqual(saved.body, { windowHours: 6, minShare: 0.5 });
    // 5 of the last 6 hours at 5 % an hour from 60 %: 85 % now, 100 % in about 3 hours
    const names = listed(await admin.get(`/api/alert-rules/${warning}/preview`)).map((line) => line.split(' ')[0]);
    assert.deepEqual(names, ['fresh-01/', 'fast-01/', 'other-01/', 'slow-01/data']);
    await admin.put('/api/settings/forecasts', { windowHours: 24, minShare: 0.75 });
  });
});
