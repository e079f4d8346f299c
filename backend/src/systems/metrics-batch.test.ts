import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_BATCH_SERIES } from '../../../contracts/systems.js';
import { createCustomer } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client, signedInAs } from '../testing/http.js';

const createSystem = async (db: TestDatabase, customerId: number, name: string): Promise<number> =>
  (
    await db
      .knex('systems')
      .insert({ customer_id: customerId, name, hostname: name, agent_id: `agent-${name}` })
      .returning<{ id: number }[]>('id')
  )[0]!.id;

describe('chart data of several series in one request', () => {
  let db: TestDatabase;
  let server: TestServer;
  let admin: Client;
  let viewer: Client;
  let system: number;
  let hidden: number;
  const to = new Date();
  const window = `from=${new Date(to.getTime() - 3_600_000).toISOString()}&to=${to.toISOString()}`;
  const batch = (id: number, series: string[], extra = window) =>
    `/api/systems/${id}/metrics/batch?${series.map((s) => `series=${encodeURIComponent(s)}`).join('&')}&${extra}`;

  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url));
    admin = await signedInAs(server.url, db.knex, 'ADMIN');
    const mine = await createCustomer(db.knex, 'Mine');
    viewer = await signedInAs(server.url, db.knex, 'VIEWER', [mine]);
    system = await createSystem(db, mine, 'batch-01');
    hidden = await createSystem(db, await createCustomer(db.knex, 'Theirs'), 'batch-02');
    // per-sample rows kept from before the upgrade, older than the report rows
    await db.knex.raw(`CREATE TABLE metrics_legacy (time timestamptz NOT NULL, system_id integer NOT NULL,
                         name text NOT NULL, instance text NOT NULL DEFAULT '', value double precision NOT NULL)`);
    await db.knex.raw(
      `INSERT INTO metrics_legacy (time, system_id, name, instance, value)
       SELECT t, ?, s.name, s.instance, s.value + extract(minute FROM t)
         FROM generate_series(now() - interval '4 hours', now() - interval '121 minutes', interval '1 minute') AS t,
              (VALUES ('cpu.usage_pct', '', 0.25), ('disk.used_pct', '/var', 10.5)) AS s(name, instance, value)`,
      [system],
    );
    for (const [name, instance, value] of [
      ['cpu.usage_pct', '', 'extract(minute FROM t)'],
      ['disk.used_pct', '/var', '50'],
      ['disk.used_pct', '/srv|backup', '70'],
    ] as const) {
      await db.knex.raw(
        `INSERT INTO metric_samples (time, system_id, name, instance, value)
         SELECT t, ?, ?, ?, ${value} FROM generate_series(now() - interval '2 hours', now(), interval '1 minute') AS t`,
        [system, name, instance],
      );
    }
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('answers each series asked, in order, with the points the single-series route gives', async () => {
    const answer = await viewer.get(
      batch(system, ['cpu.usage_pct', 'disk.used_pct|/var', 'disk.used_pct|/srv|backup', 'mem.used_pct']),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.source, 'raw');
    assert.deepEqual(
      answer.body.series.map((s: { name: string; instance: string }) => `${s.name} ${s.instance}`),
      ['cpu.usage_pct ', 'disk.used_pct /var', 'disk.used_pct /srv|backup', 'mem.used_pct '],
    );
    const single = await viewer.get(`/api/systems/${system}/metrics?name=cpu.usage_pct&${window}`);
    assert.equal(single.body.bucketSeconds, answer.body.bucketSeconds);
    assert.deepEqual(answer.body.series[0].points, single.body.points);
    assert.ok(answer.body.series[1].points.length >= 55);
    assert.ok(answer.body.series[1].points.every((p: number[]) => p[1] === 50));
    assert.ok(
      answer.body.series[2].points.every((p: number[]) => p[1] === 70),
      'the instance is all after the first |',
    );
    assert.deepEqual(answer.body.series[3].points, [], 'a series without samples has no points');
  });

  it('answers each series as its own request does, over the rows kept from before the upgrade too', async () => {
    const series = ['disk.used_pct|/srv|backup', 'mem.used_pct', 'disk.used_pct|/var', 'cpu.usage_pct'];
    const longer = `from=${new Date(to.getTime() - 5 * 3_600_000).toISOString()}&to=${to.toISOString()}`;
    for (const extra of [window, longer]) {
      const answer = await viewer.get(batch(system, series, extra));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      for (const [i, key] of series.entries()) {
        const [name, ...instance] = key.split('|');
        const query = `name=${name}&instance=${encodeURIComponent(instance.join('|'))}&${extra}`;
        const single = await viewer.get(`/api/systems/${system}/metrics?${query}`);
        assert.equal(single.status, 200, JSON.stringify(single.body));
        assert.equal(answer.body.bucketSeconds, single.body.bucketSeconds);
        assert.deepEqual(answer.body.series[i].points, single.body.points, `${key} (${extra})`);
      }
    }
    const cpu = (await viewer.get(batch(system, ['cpu.usage_pct'], longer))).body.series[0].points as number[][];
    assert.ok(
      cpu.some((p) => p[0]! < to.getTime() - 2.1 * 3_600_000),
      'the kept rows are read beside the report rows',
    );
  });

  it('answers a series asked twice once', async () => {
    const answer = await admin.get(batch(system, ['cpu.usage_pct', 'cpu.usage_pct|']));
    assert.equal(answer.status, 200);
    assert.equal(answer.body.series.length, 1);
  });

  it('hides systems the account may not see, like the single-series route', async () => {
    assert.equal((await viewer.get(batch(hidden, ['cpu.usage_pct']))).status, 404);
    assert.equal((await viewer.get(`/api/systems/${hidden}/metrics?name=cpu.usage_pct`)).status, 404);
    assert.equal((await new Client(server.url).get(batch(system, ['cpu.usage_pct']))).status, 401);
    assert.equal((await admin.get(batch(hidden, ['cpu.usage_pct']))).status, 200);
  });

  it('refuses no series, too many, a bad name and a bad window, naming the field', async () => {
    const none = await admin.get(`/api/systems/${system}/metrics/batch?${window}`);
    assert.equal(none.status, 400);
    assert.match(none.body.error, /^series: /);
    const many = Array.from({ length: MAX_BATCH_SERIES + 1 }, (_, i) => `disk.used_pct|/m${i}`);
    const tooMany = await admin.get(batch(system, many));
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.error, new RegExp(`at most ${MAX_BATCH_SERIES} series`));
    const bad = await admin.get(batch(system, ['cpu.usage_pct', 'CPU;drop']));
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^series\.1: must be a metric name/);
    const backwards = await admin.get(
      batch(system, ['cpu.usage_pct'], `from=${to.toISOString()}&to=${to.toISOString()}`),
    );
    assert.equal(backwards.status, 400);
    assert.equal(backwards.body.details?.field, 'from');
    assert.equal(
      (await admin.get(batch(system, ['cpu.usage_pct'], 'from=2020-01-01T00:00:00Z'))).status,
      400,
      'at most 400 days back',
    );
  });
});
