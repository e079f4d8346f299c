/**
 * One alert path: a check's state raises and resolves its alert in the real evaluation run, routed
 * to a real webhook receiver like a system's alert. The check runs against a real HTTP server on
 * loopback (allowed as ARGUS_ALLOW_PRIVATE_CHECKS allows it), through the runner and its repository,
 * on the harness's fake clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureCheckRules } from '../../../db/seed-rules.js';
import { SYSTEM_ACTOR } from '../lib/audit-trail.js';
import { routeGlobally, sealedWebhook } from '../testing/channels.js';
import { checkInput, checkRig, httpGet, startShop, type Shop } from '../testing/check-rig.js';
import { MINUTE, startEvaluationHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';
import { ADMIN } from '../testing/principals.js';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { HEARTBEAT_MS, nextSlot, type CheckRunner } from './runner.js';
import type { ChecksService } from './service.js';

describe('a check on the one alert path', () => {
  let h: EvaluationHarness;
  let receiver: WebhookReceiver;
  let shop: Shop;
  let runner: CheckRunner;
  let checks: ChecksService;
  before(async () => {
    h = await startEvaluationHarness();
    assert.equal(await ensureCheckRules(h.knex), 2);
    receiver = await startWebhookReceiver();
    await routeGlobally(h.knex, [await sealedWebhook(h.knex, h.box, `${receiver.url}/hook`)]);
    shop = await startShop();
    ({ runner, checks } = checkRig(h));
  });
  after(async () => {
    await runner.stop();
    await shop.close();
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
    const check = await checks.create(
      SYSTEM_ACTOR,
      ADMIN,
      checkInput(customerId, 'Shop front', { settings: httpGet(shop.url), retries: 1 }),
    );

    await runThenEvaluate(check.id);
    assert.equal((await checks.get(ADMIN, check.id)).state, 'UP');
    assert.equal(await h.statusOf(check.id), 'ONLINE');

    shop.answer = 503;
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

    shop.answer = 200;
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
    const check = await checks.create(
      SYSTEM_ACTOR,
      ADMIN,
      checkInput(customerId, 'Hourly', {
        settings: { type: 'tcp', host: '127.0.0.1', port: shop.port },
        intervalSeconds: 3600,
      }),
    );
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
