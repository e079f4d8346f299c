/**
 * One alert path: a check's state raises and resolves its alert in the real evaluation run, routed
 * to a real webhook receiver like a system's alert. The check runs against a real HTTP server on
 * loopback (allowed as ARGUS_ALLOW_PRIVATE_CHECKS allows it), through the runner and its repository,
 * on the harness's fake clock.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ensureCheckRules } from '../../../db/seed-rules.js';
import { SYSTEM_ACTOR } from '../lib/audit-trail.js';
import { auditTrailOn } from '../testing/audit.js';
import { routeGlobally, sealedWebhook } from '../testing/channels.js';
import { MINUTE, startEvaluationHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';
import type { Principal } from '../lib/access.js';
import { checksPolicy } from './policy.js';
import { createChecksRepo } from './repo.js';
import { createCheckRunner, HEARTBEAT_MS, nextSlot, type CheckRunner } from './runner.js';
import { createChecksService, type ChecksService } from './service.js';

const ADMIN: Principal = {
  userId: 1,
  role: 'ADMIN',
  email: 'admin@example.com',
  via: 'session',
  sessionId: null,
  tokenId: null,
  customerIds: new Set(),
};

describe('a check on the one alert path', () => {
  let h: EvaluationHarness;
  let receiver: WebhookReceiver;
  let shop: http.Server;
  let answer = 200;
  let runner: CheckRunner;
  let checks: ChecksService;
  before(async () => {
    h = await startEvaluationHarness();
    assert.equal(await ensureCheckRules(h.knex), 2);
    receiver = await startWebhookReceiver();
    await routeGlobally(h.knex, [await sealedWebhook(h.knex, h.box, `${receiver.url}/hook`)]);
    shop = http.createServer((_req, res) => res.writeHead(answer).end('shop'));
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    const repo = createChecksRepo(h.knex);
    const policy = checksPolicy(true);
    runner = createCheckRunner({ repo, box: h.box, clock: h.clock, log: h.logs.log, policy });
    checks = createChecksService({
      repo,
      box: h.box,
      clock: h.clock,
      audit: auditTrailOn(h.knex, h.clock),
      policy,
      changed: () => undefined,
    });
  });
  after(async () => {
    await runner.stop();
    shop.closeAllConnections();
    await new Promise((resolve) => shop.close(resolve));
    await receiver.close();
    await h.close();
  });

  /** A minute later: the check runs once, then the evaluation. */
  async function runThenEvaluate(id: number) {
    h.clock.advance(MINUTE);
    await runner.runNow(id);
    await h.run();
  }

  it('DOWN after its retries raises a routed CRITICAL alert; UP again resolves it', async () => {
    const customerId = await h.customer();
    const url = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/`;
    const check = await checks.create(SYSTEM_ACTOR, ADMIN, {
      customerId,
      clusterId: null,
      name: 'Shop front',
      settings: {
        type: 'http',
        url,
        method: 'GET',
        expectedStatuses: '200-299',
        keywordIsRegex: false,
        keywordAbsent: false,
        followRedirects: true,
        verifyTls: true,
        headers: [],
      },
      intervalSeconds: 60,
      timeoutSeconds: 5,
      retries: 1,
      retryIntervalSeconds: 20,
      maxResponseMs: null,
      locations: ['argus'],
      quorum: null,
      enabled: true,
    });

    await runThenEvaluate(check.id);
    assert.equal((await checks.get(ADMIN, check.id)).state, 'UP');
    assert.equal(await h.statusOf(check.id), 'ONLINE');

    answer = 503;
    await runThenEvaluate(check.id);
    const retrying = await checks.get(ADMIN, check.id);
    assert.deepEqual([retrying.state, retrying.failures, retrying.lastResult?.reason], ['UP', 1, 'status 503']);
    assert.deepEqual(await h.openAlerts(check.id), [], 'one failure within the retries raises nothing');

    await runThenEvaluate(check.id);
    assert.equal((await checks.get(ADMIN, check.id)).state, 'DOWN');
    const [alert] = await h.openAlerts(check.id);
    assert.deepEqual([alert?.rule_key, alert?.severity, alert?.customer_id], ['check.down', 'CRITICAL', customerId]);
    assert.equal(await h.statusOf(check.id), 'CRITICAL');
    await waitFor(() => receiver.events().includes('raised'));

    answer = 200;
    await runThenEvaluate(check.id);
    assert.equal((await checks.get(ADMIN, check.id)).state, 'UP');
    assert.deepEqual(await h.openAlerts(check.id), []);
    assert.equal(await h.statusOf(check.id), 'ONLINE');
    await waitFor(() => receiver.events().includes('resolved'));
    const raised = receiver.received.find((r) => r.json['event'] === 'raised');
    assert.match(JSON.stringify(raised?.json), /Shop front/);

    // the samples are the check's own series, one row per run
    const series = await h.knex('metric_samples').where({ system_id: check.id, name: 'check.down' }).orderBy('time');
    assert.deepEqual(
      series.map((s: { value: number }) => s.value),
      [0, 0, 1, 0],
    );
  });

  it('keeps the state fresh between the runs of a long interval, and spreads checks over their interval', async () => {
    const customerId = await h.customer();
    const check = await checks.create(SYSTEM_ACTOR, ADMIN, {
      customerId,
      clusterId: null,
      name: 'Hourly',
      settings: { type: 'tcp', host: '127.0.0.1', port: (shop.address() as AddressInfo).port },
      intervalSeconds: 3600,
      timeoutSeconds: 5,
      retries: 0,
      retryIntervalSeconds: 20,
      maxResponseMs: null,
      locations: ['argus'],
      quorum: null,
      enabled: true,
    });
    await runner.runNow(check.id);
    const stored = async () => Number((await h.knex('metrics').where({ system_id: check.id }).count({ n: '*' }))[0]?.n);
    assert.equal(await stored(), 1);
    h.clock.advance(HEARTBEAT_MS + 1000);
    await runner.tick();
    assert.equal(await stored(), 2, 'a heartbeat row of the state');
    const latest = await h.knex('metric_latest').where({ system_id: check.id, name: 'check.down' }).first();
    assert.equal(latest.time.getTime(), h.clock.now().getTime());

    // 1,000 checks at 30 s: no second of the interval holds more than a few of them
    const perSecond = new Map<number, number>();
    const now = Date.parse('2026-03-02T12:00:00.000Z');
    for (let id = 1; id <= 1000; id++) {
      const slot = nextSlot(id, 30_000, now);
      assert.ok(slot > now && slot <= now + 30_000);
      const second = Math.floor((slot - now) / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    assert.equal(perSecond.size, 30);
    assert.ok(Math.max(...perSecond.values()) <= 60, `at most ${Math.max(...perSecond.values())} in one second`);
  });
});

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
