import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../lib/crypto.js';
import { startIngestHarness, type IngestHarness } from '../testing/ingest-harness.js';

describe('POST /api/webhook/metrics: what is stored and answered', () => {
  let h: IngestHarness;
  // the settings of one system, replaced (a new object) when they change, as the agent-settings cache does
  let changing: Record<string, unknown> = { interval: '30s' };
  let changingSystem = -1;
  before(async () => {
    h = await startIngestHarness({
      effectiveSettings: async (systemId) =>
        systemId === changingSystem ? changing : systemId % 2 === 0 ? { b: '2', a: { y: 1, x: 2 } } : {},
    });
  });
  after(() => h.close());

  it('skips and counts reports outside [now - raw retention, now + 5 min] and stores the rest', async () => {
    const agent = await h.boundAgent();
    const day = 86_400_000;
    const reports = [
      h.report(-8 * day),
      h.report(-6 * day),
      h.report(-1000),
      h.report(4 * 60_000),
      h.report(6 * 60_000),
    ];
    const reply = await h.post({ reports }, { token: await agent.token() });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual([reply.body.accepted, reply.body.duplicates, reply.body.skipped], [3, 0, 2]);
    assert.equal(await h.metricCount(agent.systemId), 9);
  });

  it('answers settings, their canonical hash and no update offer', async () => {
    const agent = await h.boundAgent();
    const reply = await h.post({ reports: [h.report()] }, { token: await agent.token() });
    const expected = agent.systemId % 2 === 0 ? { b: '2', a: { y: 1, x: 2 } } : {};
    const canonical = agent.systemId % 2 === 0 ? '{"a":{"x":2,"y":1},"b":"2"}' : '{}';
    assert.deepEqual(reply.body, {
      accepted: 1,
      duplicates: 0,
      skipped: 0,
      settings: expected,
      settings_rev: sha256(canonical),
      update: null,
    });
    assert.equal(reply.headers['cache-control'], 'no-store');
  });

  it('answers the revision of the settings in effect, also when the same settings object comes again', async () => {
    const agent = await h.boundAgent();
    changingSystem = agent.systemId;
    let ago = 0;
    const revision = async () =>
      (await h.post({ reports: [h.report((ago -= 1000))] }, { token: await agent.token() })).body.settings_rev;
    assert.equal(await revision(), sha256('{"interval":"30s"}'));
    assert.equal(await revision(), sha256('{"interval":"30s"}'));
    changing = { interval: '10s', services: 'nginx' };
    assert.equal(await revision(), sha256('{"interval":"10s","services":"nginx"}'));
  });

  it('stores a replayed buffer once, also when the copies arrive concurrently', async () => {
    const agent = await h.boundAgent();
    const buffer = Array.from({ length: 20 }, (_, i) => h.report(-60_000 + i * 1000, 6));
    const first = await h.post({ reports: buffer.slice(0, 10) }, { token: await agent.token() });
    assert.deepEqual([first.body.accepted, first.body.duplicates], [10, 0]);
    const again = await h.post({ reports: buffer.slice(0, 10) }, { token: await agent.token() });
    assert.deepEqual([again.body.accepted, again.body.duplicates], [0, 10]);

    const token = await agent.token();
    const replies = await Promise.all(Array.from({ length: 6 }, () => h.post({ reports: buffer }, { token })));
    assert.ok(replies.every((r) => r.status === 200));
    assert.equal(
      replies.reduce((sum, r) => sum + r.body.accepted, 0),
      10,
      'each new report counted once',
    );
    assert.equal(
      replies.reduce((sum, r) => sum + r.body.duplicates, 0),
      6 * 20 - 10,
    );
    assert.equal(await h.metricCount(agent.systemId), 20 * 6);
  });

  it('counts a report repeated inside one request as a duplicate', async () => {
    const agent = await h.boundAgent();
    const report = h.report(-3000);
    const reply = await h.post({ reports: [report, report] }, { token: await agent.token() });
    assert.deepEqual([reply.body.accepted, reply.body.duplicates], [1, 1]);
  });

  it('brings PENDING, OFFLINE and STANDBY systems ONLINE, keeps WARNING and CRITICAL, and tells the live channel', async () => {
    for (const [from, to] of [
      ['PENDING', 'ONLINE'],
      ['OFFLINE', 'ONLINE'],
      ['STANDBY', 'ONLINE'],
      ['WARNING', 'WARNING'],
      ['CRITICAL', 'CRITICAL'],
      ['ONLINE', 'ONLINE'],
    ]) {
      const agent = await h.boundAgent(from);
      const before = h.published.length;
      const reply = await h.post(
        {
          agent: { version: '2.30.0', hostname: 'db-7', os: 'Debian 13', kernel: '6.12', arch: 'aarch64', cores: 4 },
          reports: [h.report()],
        },
        { token: await agent.token() },
      );
      assert.equal(reply.status, 200);
      const row = await h.db.knex('systems').where({ id: agent.systemId }).first();
      assert.equal(row.status, to, `${from} → ${to}`);
      assert.equal(row.last_seen_at.getTime(), h.clock.now().getTime());
      assert.deepEqual(
        [row.agent_version, row.hostname, row.os, row.kernel, row.arch, row.cores],
        ['2.30.0', 'db-7', 'Debian 13', '6.12', 'aarch64', 4],
      );
      assert.equal(row.name, agent.sub, 'the name is the user’s, not overwritten');
      await new Promise((resolve) => setImmediate(resolve));
      const told = h.published.slice(before).filter((p) => p.topic === 'systems');
      assert.equal(told.length, from === to ? 0 : 1, `${from}: systems event`);
    }
  });

  it('publishes the newest stored report on system:<id> while it is followed, nothing for duplicates', async () => {
    const agent = await h.boundAgent();
    const topic = `system:${agent.systemId}`;
    const off = await h.bus.subscribe(topic, () => undefined);
    const older = {
      ts: new Date(h.clock.now().getTime() - 2000).toISOString(),
      metrics: [{ name: 'cpu.usage_pct', value: 1 }],
    };
    const newer = {
      ts: new Date(h.clock.now().getTime() - 1000).toISOString(),
      metrics: [
        { name: 'cpu.usage_pct', value: 2 },
        { name: 'disk.used_pct', instance: '/var', value: 71.2 },
      ],
    };
    await h.post({ reports: [older, newer] }, { token: await agent.token() });
    const events = h.published.filter((p) => p.topic === topic);
    assert.deepEqual(
      events.map((e) => e.event),
      [
        {
          ts: newer.ts,
          metrics: [
            { name: 'cpu.usage_pct', instance: '', value: 2 },
            { name: 'disk.used_pct', instance: '/var', value: 71.2 },
          ],
        },
      ],
    );
    await h.post({ reports: [older, newer] }, { token: await agent.token() });
    assert.equal(h.published.filter((p) => p.topic === topic).length, 1);
    await off();
  });

  it('publishes no report of a system nobody follows', async () => {
    const agent = await h.boundAgent();
    const topic = `system:${agent.systemId}`;
    const reply = await h.post({ reports: [h.report(-1000)] }, { token: await agent.token() });
    assert.equal(reply.body.accepted, 1);
    assert.equal(h.published.filter((p) => p.topic === topic).length, 0);
    // followed from now on: the next report goes out
    const off = await h.bus.subscribe(topic, () => undefined);
    await h.post({ reports: [h.report(-500)] }, { token: await agent.token() });
    assert.equal(h.published.filter((p) => p.topic === topic).length, 1);
    await off();
    await h.post({ reports: [h.report(-250)] }, { token: await agent.token() });
    assert.equal(h.published.filter((p) => p.topic === topic).length, 1, 'unfollowed again: not published');
  });

  it('keeps the newest value per metric and instance in metric_latest, whatever the arrival order', async () => {
    const agent = await h.boundAgent();
    const at = (offset: number, value: number) => ({
      ts: new Date(h.clock.now().getTime() + offset).toISOString(),
      metrics: [
        { name: 'mem.used_pct', value },
        { name: 'disk.used_pct', instance: '/', value: value * 10 },
      ],
    });
    await h.post({ reports: [at(-10_000, 1), at(-5_000, 2)] }, { token: await agent.token() });
    await h.post({ reports: [at(-20_000, 3)] }, { token: await agent.token() }); // late, older
    const rows = await h.db.knex('metric_latest').where({ system_id: agent.systemId }).orderBy('name');
    assert.deepEqual(
      rows.map((r) => [r.name, r.instance, r.value, r.time.getTime()]),
      [
        ['disk.used_pct', '/', 20, h.clock.now().getTime() - 5_000],
        ['mem.used_pct', '', 2, h.clock.now().getTime() - 5_000],
      ],
    );
  });

  it('stores events once per report', async () => {
    const agent = await h.boundAgent();
    const report = h.report(-1000, 1, {
      events: [{ type: 'service.failed', severity: 'WARNING', message: 'nginx.service failed' }],
    });
    await h.post({ reports: [report] }, { token: await agent.token() });
    await h.post({ reports: [report] }, { token: await agent.token() });
    const events = await h.db.knex('agent_events').where({ system_id: agent.systemId });
    assert.equal(events.length, 1);
    assert.deepEqual(
      [events[0].type, events[0].severity, events[0].message],
      ['service.failed', 'WARNING', 'nginx.service failed'],
    );
  });

  it('limits accepted reports per system to 600 a minute (429 with Retry-After), storing nothing of the refused request', async () => {
    const agent = await h.boundAgent();
    const token = await agent.token();
    const many = (n: number, from: number) => Array.from({ length: n }, (_, i) => h.report(-(from + i) * 100, 1));
    assert.equal((await h.post({ reports: many(500, 0) }, { token })).status, 200);
    assert.equal((await h.post({ reports: many(100, 500) }, { token })).status, 200);
    const limited = await h.post({ reports: many(1, 600) }, { token });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.match(
      limited.body.error,
      /^Too many reports for this system: more than 600 a minute \(AGENT_REPORTS_PER_SYSTEM_PER_MINUTE\): send them again in \d+ s$/,
    );
    assert.equal(await h.metricCount(agent.systemId), 600);
    const other = await h.boundAgent();
    assert.equal((await h.post({ reports: many(1, 0) }, { token: await other.token() })).status, 200, 'per system');
  });

  it('commits many concurrent requests in few statements, losing none', async () => {
    const agents = await Promise.all(Array.from({ length: 50 }, () => h.boundAgent()));
    const tokens = await Promise.all(agents.map((a) => a.token()));
    const round = async (offsetMs: number) => {
      const before = h.feature.writer.stats();
      const replies = await Promise.all(
        agents.map((_, i) => h.post({ reports: [h.report(offsetMs, 60)] }, { token: tokens[i] })),
      );
      assert.ok(replies.every((r) => r.status === 200 && r.body.accepted === 1));
      const after = h.feature.writer.stats();
      assert.equal(after.requests - before.requests, 50);
      return after.statements - before.statements;
    };
    await round(-2000); // warm-up: the pool opens its connections
    const statements = await round(-1000);
    assert.ok(statements <= 10, `50 requests in ${statements} statements`);
    const counts = await h.db
      .knex('metric_samples')
      .whereIn(
        'system_id',
        agents.map((a) => a.systemId),
      )
      .count<{ n: string }[]>('* as n');
    assert.equal(Number(counts[0]?.n), 2 * 50 * 60, 'every acknowledged sample is there');
  });
});
