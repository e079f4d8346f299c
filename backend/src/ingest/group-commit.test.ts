import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCustomer } from '../testing/accounts.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { captureLogger } from '../testing/logger.js';
import { createGroupCommitWriter, type WriteRequest } from './group-commit.js';
import { createIngestRepo } from './repo.js';
import { packed } from './series-sets.js';

describe('group-commit writer', () => {
  let db: TestDatabase;
  let customerId: number;
  const base = Date.now() - 3600_000;
  before(async () => {
    db = await createTestDatabase();
    customerId = await createCustomer(db.knex);
  });
  after(() => db.drop());

  async function system(): Promise<number> {
    const [row] = await db
      .knex('systems')
      .insert({ customer_id: customerId, name: 's' })
      .returning<{ id: number }[]>('id');
    return (row as { id: number }).id;
  }

  function request(systemId: number, ms: number, samples = 10): WriteRequest {
    return {
      systemId,
      reports: [
        {
          ms,
          ...packed(Array.from({ length: samples }, (_, i) => ({ name: `m.${i}`, instance: '', value: i }))),
          events: [],
        },
      ],
      touch: { seenAt: new Date(), version: null, hostname: null, os: null, kernel: null, arch: null, cores: null },
    };
  }

  async function rows(systemIds: number[]): Promise<number> {
    const [row] = await db.knex('metric_samples').whereIn('system_id', systemIds).count<{ n: string }[]>('* as n');
    return Number(row?.n);
  }

  it('stores 100 concurrent requests in a few statements and answers each after its commit', async () => {
    const writer = createGroupCommitWriter({ repo: createIngestRepo(db.knex), log: captureLogger().log });
    const ids = await Promise.all(Array.from({ length: 100 }, () => system()));
    const outcomes = await Promise.all(ids.map((id) => writer.write(request(id, base))));
    assert.ok(outcomes.every((o) => o.stored[0] === true));
    assert.ok(writer.stats().statements <= 4, `${writer.stats().statements} statements`);
    assert.equal(await rows(ids), 1000);
    await writer.close();
  });

  it('splits a batch at maxBatchRows', async () => {
    const writer = createGroupCommitWriter({
      repo: createIngestRepo(db.knex),
      log: captureLogger().log,
      maxBatchRows: 50,
      lanes: 1,
    });
    const id = await system();
    await Promise.all(Array.from({ length: 10 }, (_, i) => writer.write(request(id, base + i))));
    assert.ok(writer.stats().statements >= 2);
    assert.equal(await rows([id]), 100);
    await writer.close();
  });

  it('takes live requests first and at most one replayed request beyond maxReplayRows a statement', async () => {
    const repo = createIngestRepo(db.knex);
    const statements: number[][] = [];
    const writer = createGroupCommitWriter({
      repo: {
        storeBatch(arrays) {
          statements.push([...new Set(arrays.reports.systemId)]);
          return repo.storeBatch(arrays);
        },
      },
      log: captureLogger().log,
      lanes: 1,
      maxReplayRows: 50,
    });
    const [r1, r2, r3, l1, l2] = await Promise.all(Array.from({ length: 5 }, () => system()));
    const replay = (id: number) => ({ ...request(id, base - 1_800_000, 40), replay: true });
    // queued in one turn, the replays first: a backlog ahead of live reports
    const outcomes = await Promise.all([
      writer.write(replay(r1 as number)),
      writer.write(replay(r2 as number)),
      writer.write(replay(r3 as number)),
      writer.write(request(l1 as number, base)),
      writer.write(request(l2 as number, base)),
    ]);
    assert.ok(
      outcomes.every((o) => o.stored[0] === true),
      'every request stored',
    );
    assert.deepEqual(statements, [[l1, l2, r1], [r2], [r3]]);
    assert.equal(await rows([r1, r2, r3, l1, l2] as number[]), 140);
    await writer.close();
  });

  it('stores a report sent twice in one batch once', async () => {
    const writer = createGroupCommitWriter({ repo: createIngestRepo(db.knex), log: captureLogger().log });
    const id = await system();
    const [a, b] = await Promise.all([writer.write(request(id, base)), writer.write(request(id, base))]);
    assert.deepEqual([a?.stored, b?.stored], [[true], [false]]);
    assert.equal(writer.stats().statements, 1);
    assert.equal(await rows([id]), 10);
    await writer.close();
  });

  it('puts the newest sample of each series of a batch into metric_latest, whatever the order in the batch', async () => {
    const writer = createGroupCommitWriter({ repo: createIngestRepo(db.knex), log: captureLogger().log, lanes: 1 });
    const id = await system();
    const report = (ms: number, metrics: { name: string; value: number }[]) => ({
      systemId: id,
      reports: [{ ms, ...packed(metrics), events: [] }],
      touch: request(id, ms).touch,
    });
    // one batch: the newest report first, a series only the oldest report has, and a two-report request
    await Promise.all([
      writer.write(report(base + 3000, [{ name: 'a', value: 3 }])),
      writer.write(
        report(base + 1000, [
          { name: 'a', value: 1 },
          { name: 'only.old', value: 1 },
        ]),
      ),
      writer.write({
        ...report(base + 2000, [
          { name: 'a', value: 2 },
          { name: 'b', value: 2 },
        ]),
        reports: [
          {
            ms: base + 2000,
            ...packed([
              { name: 'a', value: 2 },
              { name: 'b', value: 2 },
            ]),
            events: [],
          },
          { ms: base + 500, ...packed([{ name: 'b', value: 0.5 }]), events: [] },
        ],
      }),
    ]);
    assert.equal(writer.stats().statements, 1);
    const latest = await db.knex('metric_latest').where({ system_id: id }).orderBy('name');
    assert.deepEqual(
      latest.map((r) => [r.name, r.value, r.time.getTime()]),
      [
        ['a', 3, base + 3000],
        ['b', 2, base + 2000],
        ['only.old', 1, base + 1000],
      ],
    );
    assert.equal(await rows([id]), 6);
    await writer.close();
  });

  it("a system's only report of a batch: newer replaces, a late older one keeps the newer, a new set merges", async () => {
    const writer = createGroupCommitWriter({ repo: createIngestRepo(db.knex), log: captureLogger().log, lanes: 1 });
    const id = await system();
    const alone = async (ms: number, metrics: { name: string; instance?: string; value: number }[]) => {
      const outcome = await writer.write({
        systemId: id,
        reports: [{ ms, ...packed(metrics), events: [] }],
        touch: request(id, ms).touch,
      });
      await writer.flush();
      return outcome.stored;
    };
    const latest = async () =>
      (await db.knex('metric_latest').where({ system_id: id }).orderBy(['name', 'instance'])).map((r) => [
        r.name,
        r.instance,
        r.value,
        r.time.getTime() - base,
      ]);
    await alone(base + 1000, [
      { name: 'a', value: 1.25 },
      { name: 'd', instance: '/', value: 31_536_123 },
    ]);
    await alone(base + 2000, [
      { name: 'a', value: 2 },
      { name: 'd', instance: '/', value: 31_536_124 },
    ]);
    assert.deepEqual(await latest(), [
      ['a', '', 2, 2000],
      ['d', '/', 31_536_124, 2000],
    ]);
    assert.deepEqual(
      await alone(base + 1500, [
        { name: 'a', value: 9 },
        { name: 'd', instance: '/', value: 9 },
      ]),
      [true],
    );
    assert.deepEqual(
      await latest(),
      [
        ['a', '', 2, 2000],
        ['d', '/', 31_536_124, 2000],
      ],
      'a replayed older report is stored, the newer values stay',
    );
    await alone(base + 3000, [
      { name: 'a', value: 3 },
      { name: 'd', instance: '/data', value: 0.5 },
    ]);
    assert.deepEqual(
      await latest(),
      [
        ['a', '', 3, 3000],
        ['d', '/', 31_536_124, 2000],
        ['d', '/data', 0.5, 3000],
      ],
      'a new set: its series taken, the one it left out kept',
    );
    assert.deepEqual(
      await alone(base + 3000, [
        { name: 'a', value: 4 },
        { name: 'd', instance: '/data', value: 4 },
      ]),
      [false],
    );
    await alone(base + 4000, [
      { name: 'a', value: 5 },
      { name: 'd', instance: '/data', value: 6 },
    ]);
    assert.deepEqual(
      (await latest()).map((r) => r[2]),
      [5, 31_536_124, 6],
    );
    await writer.close();
  });

  it('fails only the request the database refuses, not the others of its batch', async () => {
    const logs = captureLogger();
    const writer = createGroupCommitWriter({ repo: createIngestRepo(db.knex), log: logs.log, lanes: 1 });
    const ids = await Promise.all(Array.from({ length: 5 }, () => system()));
    const deleted = await system();
    await db.knex('systems').where({ id: deleted }).delete();
    const results = await Promise.allSettled([...ids, deleted].map((id) => writer.write(request(id, base + 7))));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected'],
    );
    assert.equal(await rows(ids), 50);
    assert.equal(await rows([deleted]), 0, 'nothing of the refused request stayed');
    assert.ok(logs.messages().some((m) => m.startsWith('Group commit refused')));
    await writer.close();
  });

  it('on close stores what is queued, then refuses new writes', async () => {
    const writer = createGroupCommitWriter({
      repo: createIngestRepo(db.knex),
      log: captureLogger().log,
      windowMs: 1000,
    });
    const id = await system();
    const pending = writer.write(request(id, base + 9));
    await writer.close();
    assert.deepEqual((await pending).stored, [true]);
    await assert.rejects(writer.write(request(id, base + 10)), /Shutting down/);
  });
});
