import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SECRET, startIngestHarness, type IngestHarness } from '../../backend/src/testing/ingest-harness.js';
import { gunzipSync } from 'node:zlib';
import { postBytes, RawConnection } from '../bench/raw-http.js';
import { SimulatedAgent } from './agent.js';
import { SimulatedHost } from './catalogue.js';

// docs/protocol.md "Metric catalogue"
const CATALOGUE = `cpu.usage_pct cpu.iowait_pct cpu.steal_pct load.1 load.5 load.15 load.per_core_5 mem.used_pct
  mem.oom_kills swap.used_pct disk.used_pct disk.inodes_used_pct disk.readonly disk.io_util_pct disk.smart_ok
  raid.degraded net.rx_bps net.tx_bps net.errors_ps net.drops_ps net.up conntrack.used_pct services.failed
  service.active proc.zombies fd.used_pct time.offset_ms uptime.s updates.security system.reboot_required
  temp.max_c cert.days_left backup.age_h agent.buffered_reports`.split(/\s+/);

/** A bound agent sending gzip bodies, back from a 30-minute outage with its 60 buffered reports. */
function agentBackFromOutage(
  h: IngestHarness,
  bound: { sub: string; ak: string },
  hostname: string,
  seed: number,
  now: number,
): SimulatedAgent {
  const agent = new SimulatedAgent({
    url: `${h.url}/api/webhook/metrics`,
    secret: SECRET,
    sub: bound.sub,
    hostname,
    seed,
    gzip: true,
    agentKey: bound.ak,
  });
  agent.backfill(Array.from({ length: 60 }, (_, i) => now - 30 * 60_000 + i * 30_000));
  return agent;
}

describe('simulated host', () => {
  it('sends the whole metric catalogue, 60 samples a report, with values that drift within bounds', () => {
    const host = new SimulatedHost(7);
    const first = host.sample(Date.now());
    assert.equal(first.length, 60);
    assert.deepEqual([...new Set(first.map((s) => s.name))].sort(), [...CATALOGUE].sort());
    assert.ok(first.every((s) => /^[a-z0-9_.]{1,64}$/.test(s.name) && Number.isFinite(s.value)));
    const later = Array.from({ length: 100 }, (_, i) => host.sample(Date.now() + i * 30_000)).at(-1) ?? [];
    const cpu = (samples: typeof first) => samples.find((s) => s.name === 'cpu.usage_pct')?.value;
    assert.notEqual(cpu(first), cpu(later));
    assert.ok(later.filter((s) => s.name.endsWith('_pct')).every((s) => s.value >= 0 && s.value <= 100));
  });

  it('writes the JSON of its samples exactly as JSON.stringify does', () => {
    const host = new SimulatedHost(11);
    for (let i = 0; i < 3; i++) {
      const values = host.sampleValues(Date.now() + i * 30_000);
      values[0] = 1e21; // an exponent, as a large counter would be written
      assert.equal(host.metricsJson(values), JSON.stringify(host.named(values)));
    }
  });

  it('fills a disk under the disk-fill fault', () => {
    const host = new SimulatedHost(3);
    host.fault = 'disk-fill';
    const varUsed = () =>
      host.sample(Date.now()).find((s) => s.name === 'disk.used_pct' && s.instance === '/var')?.value ?? 0;
    const start = varUsed();
    for (let i = 0; i < 200; i++) varUsed();
    assert.ok(varUsed() > start + 40);
  });
});

describe('simulated agent against the webhook', () => {
  let h: IngestHarness;
  before(async () => {
    h = await startIngestHarness();
  });
  after(() => h.close());

  it('enrols, keeps its agent key, buffers while offline and delivers the buffer oldest first', async () => {
    const cluster = await h.cluster();
    const agent = new SimulatedAgent({
      url: `${h.url}/api/webhook/metrics`,
      secret: SECRET,
      enrollment: cluster.enrollmentKey,
      sub: 'sim-test-1',
      hostname: 'sim-host-1',
      seed: 1,
      gzip: true,
    });
    const now = Date.now();
    agent.collect(now - 60_000);
    const first = await agent.send(now - 60_000);
    assert.equal(first?.status, 200);
    assert.ok(agent.agentKey, 'kept the agent key');

    agent.setFault('offline');
    for (let i = 1; i <= 5; i++) agent.collect(now - 60_000 + i * 1000);
    assert.equal(await agent.send(now), null);
    assert.equal(agent.buffered, 5);
    agent.setFault(null);
    const back = await agent.send(now);
    assert.deepEqual([back?.status, back?.accepted, agent.buffered], [200, 5, 0]);

    agent.setFault('replay');
    agent.collect(now - 30_000);
    const replayed = await agent.send(now);
    assert.deepEqual([replayed?.accepted, replayed?.duplicates], [1, 5]);

    agent.setFault('clock-skew');
    agent.collect(now);
    assert.equal((await agent.send(now))?.status, 401, 'a token from 7 minutes ahead is refused');
    const system = await h.db.knex('systems').where({ agent_id: 'sim-test-1' }).first();
    assert.equal(await h.metricCount(system.id), 7 * 60);
  });

  it('keeps the reports collected while its backlog is compressed and sent, and delivers them next', async () => {
    const bound = await h.boundAgent();
    const now = Date.now();
    const agent = agentBackFromOutage(h, bound, 'sim-host-3', 3, now);
    agent.collect(now - 1000);
    // a fleet's ticks go on while a request is built (its gzip in the thread pool) and answered;
    // fewer than the system's 600 reports a minute in all
    let done = false;
    const sending = agent.send(now).finally(() => (done = true));
    let made = 61;
    while (!done) {
      if (made < 400) agent.collect(now + made++);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const first = await sending;
    assert.equal(first?.status, 200);
    assert.equal(agent.buffered, made - (first?.sent ?? 0), 'what was not in the request is still buffered');
    while (agent.buffered > 0) assert.equal((await agent.send(now + made))?.status, 200);
    assert.equal(await h.metricCount(bound.systemId), made * 60, 'every report stored');
  });

  it('writes requests ahead as it sends them live (gzip, a new token each), stored when sent later on a raw connection', async () => {
    const bound = await h.boundAgent();
    const url = `${h.url}/api/webhook/metrics`;
    const agent = new SimulatedAgent({
      url,
      secret: SECRET,
      sub: bound.sub,
      hostname: 'sim-ahead',
      seed: 4,
      gzip: true,
      freshTokens: true,
      agentKey: bound.ak,
    });
    const now = Date.now();
    const times = Array.from({ length: 5 }, (_, i) => now - 10_000 + i * 1000);
    const written = await agent.prepareRequests(times);
    assert.equal(new Set(written.map((r) => r.headers['authorization'])).size, 5, 'a token each');
    for (const { headers, payload } of written) {
      assert.equal(headers['content-encoding'], 'gzip');
      const body = JSON.parse(gunzipSync(payload).toString('utf8')) as { reports: { metrics: unknown[] }[] };
      assert.deepEqual([body.reports.length, body.reports[0]?.metrics.length], [1, 60]);
    }
    const connection = new RawConnection(url);
    try {
      for (const { headers, payload } of written) {
        const answer = await connection.send(postBytes(url, headers, payload));
        assert.equal(answer.status, 200, answer.body.toString());
        assert.equal((JSON.parse(answer.body.toString()) as { accepted: number }).accepted, 1);
      }
      // the same request again: the same report, a duplicate (its token still valid)
      const [first] = written;
      const again = await connection.send(postBytes(url, first?.headers ?? {}, first?.payload ?? Buffer.alloc(0)));
      assert.equal((JSON.parse(again.body.toString()) as { duplicates: number }).duplicates, 1);
    } finally {
      connection.close();
    }
    assert.equal(await h.metricCount(bound.systemId), 5 * 60);
  });

  it('sends a value a test set on the collected report (the tests raise alerts this way)', async () => {
    const cluster = await h.cluster();
    const agent = new SimulatedAgent({
      url: `${h.url}/api/webhook/metrics`,
      secret: SECRET,
      enrollment: cluster.enrollmentKey,
      sub: 'sim-test-2',
      hostname: 'sim-host-2',
      seed: 2,
    });
    const report = agent.collect();
    const readonly = report.metrics.find((m) => m.name === 'disk.readonly' && m.instance === '/');
    assert.ok(readonly);
    assert.equal(readonly.value, 0);
    readonly.value = 1;
    assert.equal((await agent.send())?.status, 200);
    const system = await h.db.knex('systems').where({ agent_id: 'sim-test-2' }).first();
    const stored = await h.db
      .knex('metric_samples')
      .where({ system_id: system.id, name: 'disk.readonly', instance: '/' })
      .first('value');
    assert.equal(Number(stored?.value), 1);
  });
});

describe('simulated agent slowed by the server', () => {
  let h: IngestHarness;
  before(async () => {
    // a long group-commit window keeps a live write pending: the write path is "deep"
    h = await startIngestHarness({
      groupCommit: { windowMs: 1000 },
      admission: { maxPendingSamples: 50, drainTargetMs: 0, retryAfterSeconds: { min: 20, max: 20 } },
    });
  });
  after(() => h.close());

  /** An agent back from an outage whose backlog and newest report are refused while another system's write keeps the path deep. */
  async function refusedBackFromOutage(hostname: string, seed: number) {
    const [busy, replaying] = [await h.boundAgent(), await h.boundAgent()];
    const now = Date.now();
    const agent = agentBackFromOutage(h, replaying, hostname, seed, now);
    agent.collect(now);
    const deep = h.post({ reports: [h.report(0, 100)] }, { token: await busy.token() });
    while (h.feature.admission.pending() <= 50) await new Promise((resolve) => setTimeout(resolve, 5));
    const refused = await agent.send(now);
    assert.equal((await deep).status, 200);
    return { agent, replaying, now, refused };
  }

  it('keeps a replayed backlog refused with 429, sends only its newest report alone until Retry-After is over, then delivers it once', async () => {
    const { agent, replaying, now, refused } = await refusedBackFromOutage('sim-replay', 2);
    assert.deepEqual([refused?.status, agent.buffered], [429, 61]);
    // while it waits: the newest report alone (live, so taken), once; it stays in the buffer
    const alone = await agent.send(now + 1_000);
    assert.deepEqual([alone?.status, alone?.sent, alone?.accepted, agent.buffered], [200, 1, 1, 61]);
    assert.equal(await h.metricCount(replaying.systemId), 60, 'the live report is stored');
    assert.equal(await agent.send(now + 19_000), null, 'no buffer and nothing new before Retry-After is over');
    const delivered = await agent.send(now + 20_000);
    assert.deepEqual(
      [delivered?.status, delivered?.accepted, delivered?.duplicates, agent.buffered],
      [200, 60, 1, 0],
      'the buffer once, the report sent alone answered as a duplicate',
    );
    assert.equal(await h.metricCount(replaying.systemId), 61 * 60);
  });

  it('sends the buffer itself, not its newest report alone, when woken at the end of its wait', async () => {
    const { agent, now, refused } = await refusedBackFromOutage('sim-woken', 3);
    assert.equal(refused?.status, 429);
    // woken when the wait is over (the driver, as runner.ts): the whole buffer, no lone report first
    const delivered = await agent.send(now + 20_000, true);
    assert.deepEqual([delivered?.status, delivered?.sent, delivered?.accepted, agent.buffered], [200, 61, 61, 0]);
  });
});
