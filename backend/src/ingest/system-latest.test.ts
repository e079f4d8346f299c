import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { down, up } from '../../../db/migrations/0018_system_latest.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';

interface Series {
  name: string;
  instance: string;
  time: Date;
  value: number;
}

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, seconds));
const s = (name: string, instance: string, seconds: number, value: number): Series => ({
  name,
  instance,
  time: at(seconds),
  value,
});

describe('migration 0018_system_latest: the newest values of a system in one row of arrays', () => {
  let db: TestDatabase;
  let systemId: number;
  before(async () => {
    db = await createTestDatabase();
    const [customer] = await db.knex('customers').insert({ name: 'latest' }).returning<{ id: number }[]>('id');
    const [system] = await db
      .knex('systems')
      .insert({ customer_id: customer?.id, name: 's' })
      .returning<{ id: number }[]>('id');
    systemId = system?.id as number;
  });
  after(() => db.drop());

  /** What ingest's statement does with one system's newest samples of a batch. */
  async function upsert(series: Series[]): Promise<void> {
    await db.knex.raw(
      `INSERT INTO system_latest AS l (system_id, names, instances, times, vals)
       VALUES (?, ?::text[], ?::text[], ?::timestamptz[], ?::float8[])
       ON CONFLICT (system_id) DO UPDATE SET (names, instances, times, vals) = (
         SELECT m.names, m.instances, m.times, m.vals FROM system_latest_merge(l.names, l.instances, l.times, l.vals,
           excluded.names, excluded.instances, excluded.times, excluded.vals) m)`,
      [
        systemId,
        series.map((x) => x.name),
        series.map((x) => x.instance),
        series.map((x) => x.time),
        series.map((x) => x.value),
      ],
    );
  }
  const latest = async (): Promise<Series[]> =>
    (await db.knex('metric_latest').where({ system_id: systemId }).select('name', 'instance', 'time', 'value')).map(
      (row: Series) => ({ ...row }),
    );
  const byName = (rows: Series[]) =>
    [...rows].sort((a, b) => `${a.name}|${a.instance}`.localeCompare(`${b.name}|${b.instance}`));

  it('takes a newer report of the same series as it is, in its order', async () => {
    await upsert([s('cpu.usage_pct', '', 0, 10), s('disk.used_pct', '/', 0, 50)]);
    await upsert([s('cpu.usage_pct', '', 30, 11), s('disk.used_pct', '/', 30, 51)]);
    assert.deepEqual(await latest(), [s('cpu.usage_pct', '', 30, 11), s('disk.used_pct', '/', 30, 51)]);
  });

  it('keeps the newer sample of each series when an older report arrives late (a replay)', async () => {
    await upsert([s('cpu.usage_pct', '', 15, 99), s('disk.used_pct', '/', 15, 99)]);
    assert.deepEqual(await latest(), [s('cpu.usage_pct', '', 30, 11), s('disk.used_pct', '/', 30, 51)]);
  });

  it('keeps a series a report left out and adds a new one, each with its own time', async () => {
    await upsert([s('cpu.usage_pct', '', 60, 12), s('disk.used_pct', '/data', 60, 7)]);
    assert.deepEqual(byName(await latest()), [
      s('cpu.usage_pct', '', 60, 12),
      s('disk.used_pct', '/', 30, 51),
      s('disk.used_pct', '/data', 60, 7),
    ]);
    // mixed: one series newer, one older than what is kept
    await upsert([s('disk.used_pct', '/', 45, 52), s('disk.used_pct', '/data', 50, 1)]);
    assert.deepEqual(byName(await latest()), [
      s('cpu.usage_pct', '', 60, 12),
      s('disk.used_pct', '/', 45, 52),
      s('disk.used_pct', '/data', 60, 7),
    ]);
  });

  it('lets tools and tests write metric_latest row by row: the series is set, whatever was there', async () => {
    await db.knex('metric_latest').insert([
      { system_id: systemId, name: 'cpu.usage_pct', time: at(5), value: 1 },
      { system_id: systemId, name: 'mem.used_pct', instance: '', time: at(5), value: 40 },
    ]);
    assert.deepEqual(byName(await latest()), [
      s('cpu.usage_pct', '', 5, 1),
      s('disk.used_pct', '/', 45, 52),
      s('disk.used_pct', '/data', 60, 7),
      s('mem.used_pct', '', 5, 40),
    ]);
    await assert.rejects(
      db.knex('metric_latest').insert({ system_id: systemId, name: 'x', value: 1 }),
      /metric_latest needs system_id, name, time and value/,
    );
  });

  it('goes down to the table and up again, keeping every series', async () => {
    const before = byName(await latest());
    await down(db.knex);
    const table = await db.knex('pg_tables').where({ schemaname: 'public', tablename: 'metric_latest' });
    assert.equal(table.length, 1);
    assert.deepEqual(byName(await latest()), before);
    await up(db.knex);
    assert.deepEqual(byName(await latest()), before);
    assert.equal((await db.knex('system_latest').where({ system_id: systemId })).length, 1);
  });

  it('removes the row with its system', async () => {
    await db.knex('systems').where({ id: systemId }).delete();
    assert.equal((await db.knex('system_latest').where({ system_id: systemId })).length, 0);
    assert.deepEqual(await latest(), []);
  });
});
