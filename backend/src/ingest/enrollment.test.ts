import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '../lib/crypto.js';
import { startIngestHarness, type IngestHarness } from '../testing/ingest-harness.js';

describe('POST /api/webhook/metrics: enrolment', () => {
  let h: IngestHarness;
  before(async () => {
    h = await startIngestHarness({ maxNewSystemsPerClusterPerHour: 3 });
  });
  after(() => h.close());

  const agentInfo = (enrollment?: string) => ({
    version: '2.28.1',
    hostname: 'web-01',
    os: 'Ubuntu 24.04',
    kernel: '6.8.0-45',
    arch: 'x86_64',
    cores: 8,
    ...(enrollment ? { enrollment } : {}),
  });

  it('registers an unknown agent with a valid enrollment key: PENDING until stored, then ONLINE; agentKey once', async () => {
    const cluster = await h.cluster();
    const sub = 'enrol-machine-1';
    const first = await h.post(
      { agent: agentInfo(cluster.enrollmentKey), reports: [h.report(-1000)] },
      { token: await h.token(sub) },
    );
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.accepted, 1);
    assert.match(first.body.agentKey, /^[A-Za-z0-9_-]{43}$/);
    const system = await h.db.knex('systems').where({ agent_id: sub }).first();
    assert.equal(system.cluster_id, cluster.id);
    assert.equal(system.customer_id, cluster.customerId);
    assert.equal(system.name, 'web-01');
    assert.equal(system.status, 'ONLINE');
    assert.equal(system.agent_version, '2.28.1');
    assert.equal(system.cores, 8);
    assert.equal(system.agent_key_hash, sha256(first.body.agentKey), 'only the hash is stored');
    assert.ok(h.published.some((p) => p.topic === 'systems' && (p.event as { id: number }).id === system.id));

    // from now on the key is required, and never sent again
    const without = await h.post(
      { agent: agentInfo(cluster.enrollmentKey), reports: [h.report()] },
      { token: await h.token(sub) },
    );
    assert.equal(without.status, 401);
    const withKey = await h.post(
      { agent: agentInfo(), reports: [h.report()] },
      { token: await h.token(sub, { ak: first.body.agentKey }) },
    );
    assert.equal(withKey.status, 200);
    assert.equal(withKey.body.agentKey, undefined);
  });

  it('keeps a system PENDING while none of its reports was stored (all outside the window)', async () => {
    const cluster = await h.cluster();
    const reply = await h.post(
      { agent: agentInfo(cluster.enrollmentKey), reports: [h.report(-30 * 86_400_000)] },
      { token: await h.token('enrol-machine-skipped') },
    );
    assert.equal(reply.status, 200);
    assert.deepEqual([reply.body.accepted, reply.body.skipped, reply.body.agentKey], [0, 1, undefined]);
    const system = await h.db.knex('systems').where({ agent_id: 'enrol-machine-skipped' }).first();
    assert.equal(system.status, 'PENDING');
    assert.equal(system.agent_key_hash, null);
  });

  it('answers 403 {error: "Unknown agent"} to an unknown agent without a key or with a wrong one, leaving no trace', async () => {
    await h.cluster();
    for (const enrollment of [undefined, 'wrong-enrollment-key-000000000000']) {
      const reply = await h.post(
        { agent: agentInfo(enrollment), reports: [h.report()] },
        { token: await h.token('stranger'), ip: '10.2.0.1' },
      );
      assert.equal(reply.status, 403);
      assert.deepEqual(reply.body, { error: 'Unknown agent' });
    }
    assert.equal(await h.db.knex('systems').where({ agent_id: 'stranger' }).first(), undefined);
  });

  it('binds a re-enrolled system anew with a key of its own cluster, not with another customer’s', async () => {
    const agent = await h.boundAgent();
    await h.db.knex('systems').where({ id: agent.systemId }).update({ agent_key_hash: null });
    const system = await h.db.knex('systems').where({ id: agent.systemId }).first();
    const foreign = await h.cluster();
    const refused = await h.post(
      { agent: agentInfo(foreign.enrollmentKey), reports: [h.report()] },
      { token: await h.token(agent.sub), ip: '10.2.0.2' },
    );
    assert.equal(refused.status, 401);
    const own = await h.db.knex('clusters').where({ id: system.cluster_id }).first();
    const bound = await h.post(
      { agent: agentInfo(own.enrollment_key), reports: [h.report()] },
      { token: await h.token(agent.sub, { ak: agent.ak }) },
    );
    assert.equal(bound.status, 200, bound.text);
    assert.ok(bound.body.agentKey);
    assert.notEqual(bound.body.agentKey, agent.ak);
  });

  it('enrols at most N new systems per cluster per hour (429), and again after the hour', async () => {
    const cluster = await h.cluster();
    for (let i = 0; i < 3; i++) {
      const reply = await h.post(
        { agent: agentInfo(cluster.enrollmentKey), reports: [h.report()] },
        { token: await h.token(`fleet-${i}`) },
      );
      assert.equal(reply.status, 200);
    }
    const limited = await h.post(
      { agent: agentInfo(cluster.enrollmentKey), reports: [h.report()] },
      { token: await h.token('fleet-3') },
    );
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) > 3500);
    h.clock.advance(3601_000);
    try {
      const later = await h.post(
        { agent: agentInfo(cluster.enrollmentKey), reports: [h.report()] },
        { token: await h.token('fleet-3') },
      );
      assert.equal(later.status, 200);
    } finally {
      h.clock.advance(-3601_000);
    }
  });

  it('enrols one system when an agent’s first reports arrive concurrently', async () => {
    const cluster = await h.cluster();
    const token = await h.token('racer');
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.post({ agent: agentInfo(cluster.enrollmentKey), reports: [h.report(-5000)] }, { token }),
      ),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 200, 200, 200],
    );
    assert.equal(replies.filter((r) => r.body.agentKey).length, 1, 'exactly one answer binds the key');
    assert.equal(
      replies.reduce((sum, r) => sum + r.body.accepted, 0),
      1,
    );
    assert.equal((await h.db.knex('systems').where({ agent_id: 'racer' })).length, 1);
  });
});
