/**
 * A check run from three places (the server and two agents of the customer): DOWN only when at
 * least two of them see it down (the default quorum, all but one), so one place's own fault raises
 * nothing. The server's runs come from its runner against a real HTTP server on loopback, the
 * agents' through what their reports bring (agent-checks.ts); the evaluation run raises and
 * resolves the alert. Also: each location's result as the API answers it, a replayed (older) run
 * that changes nothing, runs from an agent the check is not assigned to or of another customer left
 * out, a location gone quiet that stops counting, and the locations and quorum refused when wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureCheckRules } from '../../../db/seed-rules.js';
import { SYSTEM_ACTOR } from '../lib/audit-trail.js';
import { Invalid } from '../lib/errors.js';
import { agentRun, checkInput, checkRig, httpGet, startShop, type Shop } from '../testing/check-rig.js';
import { MINUTE, startEvaluationHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';
import { ADMIN } from '../testing/principals.js';
import type { AgentChecks } from './agent-checks.js';
import type { CheckRunner } from './runner.js';
import type { ChecksService } from './service.js';

describe('a check run from three places', () => {
  let h: EvaluationHarness;
  let shop: Shop;
  let runner: CheckRunner;
  let checks: ChecksService;
  let agents: AgentChecks;
  before(async () => {
    h = await startEvaluationHarness();
    await ensureCheckRules(h.knex);
    shop = await startShop();
    ({ runner, agents, checks } = checkRig(h));
  });
  after(async () => {
    await runner.stop();
    await shop.close();
    await h.close();
  });

  const run = (id: number, up: boolean, at = h.clock.now()) => agentRun(id, up, at);

  it('is DOWN only when two of the three see it down', async () => {
    const customerId = await h.customer();
    const [a, b] = [await h.system({ customerId }), await h.system({ customerId })];
    const stranger = await h.system();
    const check = await checks.create(
      SYSTEM_ACTOR,
      ADMIN,
      checkInput(customerId, 'Shop', {
        settings: httpGet(shop.url),
        locations: ['argus', `system:${a.id}`, `system:${b.id}`],
      }),
    );
    assert.equal(check.effectiveQuorum, 2);
    // each agent gets it with its answer; the stranger (another customer) does not
    assert.deepEqual(
      (await agents.assignedTo({ id: a.id, customerId })).map((c) => c.id),
      [check.id],
    );
    assert.deepEqual(await agents.assignedTo({ id: stranger.id, customerId: stranger.customerId }), []);

    /** A minute later: the server runs it, the agents send theirs, then the evaluation. */
    const round = async (agentA: boolean, agentB: boolean) => {
      h.clock.advance(MINUTE);
      await runner.runNow(check.id);
      await agents.recordRuns({ id: a.id, customerId }, [run(check.id, agentA)]);
      await agents.recordRuns({ id: b.id, customerId }, [run(check.id, agentB)]);
      await h.run();
      return checks.get(ADMIN, check.id);
    };
    const states = (c: Awaited<ReturnType<typeof round>>) => c.results.map((r) => r.state);

    let now = await round(true, true);
    assert.deepEqual([now.state, states(now)], ['UP', ['UP', 'UP', 'UP']]);

    // the server's own network fails: one of three, nothing raised
    shop.answer = 503;
    now = await round(true, true);
    assert.deepEqual([now.state, states(now)], ['UP', ['DOWN', 'UP', 'UP']]);
    assert.equal(now.results[0]?.lastResult?.reason, 'status 503');
    assert.deepEqual(await h.openAlerts(check.id), []);

    // an agent too: two of three, DOWN and the alert
    now = await round(false, true);
    assert.deepEqual([now.state, states(now)], ['DOWN', ['DOWN', 'DOWN', 'UP']]);
    const [alert] = await h.openAlerts(check.id);
    assert.equal(alert?.rule_key, 'check.down');

    // a replayed older run changes nothing; runs from a place the check is not assigned to are left out
    await agents.recordRuns({ id: a.id, customerId }, [run(check.id, true, new Date(h.clock.now().getTime() - 5000))]);
    await agents.recordRuns({ id: stranger.id, customerId }, [run(check.id, true)]);
    await agents.recordRuns({ id: b.id, customerId: stranger.customerId }, [run(check.id, false)]);
    now = await checks.get(ADMIN, check.id);
    assert.deepEqual([now.state, states(now)], ['DOWN', ['DOWN', 'DOWN', 'UP']]);
    assert.deepEqual(
      now.results.map((r) => [r.location, r.name]),
      [
        ['argus', 'Argus'],
        [`system:${a.id}`, (await h.knex('systems').where({ id: a.id }).first('name')).name],
        [`system:${b.id}`, (await h.knex('systems').where({ id: b.id }).first('name')).name],
      ],
    );

    // back: resolved
    shop.answer = 200;
    now = await round(true, true);
    assert.equal(now.state, 'UP');
    assert.deepEqual(await h.openAlerts(check.id), []);

    // a quorum of one: any place that sees it down is enough
    await checks.update(SYSTEM_ACTOR, ADMIN, check.id, { quorum: 1 });
    now = await round(true, false);
    assert.deepEqual([now.state, now.effectiveQuorum], ['DOWN', 1]);

    // the agents go quiet: their last word stops counting, the server's alone decides
    await checks.update(SYSTEM_ACTOR, ADMIN, check.id, { quorum: null });
    h.clock.advance(10 * MINUTE);
    await runner.runNow(check.id);
    await runner.tick();
    now = await checks.get(ADMIN, check.id);
    assert.deepEqual(
      now.results.map((r) => r.stale),
      [false, true, true],
    );
    assert.equal(now.state, 'UP');
  });

  it('refuses agents of another customer, places that run no agent, and a quorum above the places', async () => {
    const customerId = await h.customer();
    const other = await h.system();
    const base = checkInput(customerId, 'Port', { settings: { type: 'tcp', host: '127.0.0.1', port: 22 } });
    await assert.rejects(
      checks.create(SYSTEM_ACTOR, ADMIN, { ...base, locations: ['argus', `system:${other.id}`] }),
      (error: Invalid) => error instanceof Invalid && error.details?.['field'] === 'locations.1',
    );
    const created = await checks.create(SYSTEM_ACTOR, ADMIN, { ...base, locations: ['argus'] });
    await assert.rejects(
      checks.update(SYSTEM_ACTOR, ADMIN, created.id, { locations: [`system:${created.id}`] }),
      (error: Invalid) => error instanceof Invalid && error.details?.['field'] === 'locations.0',
      'a check is no agent',
    );
    await assert.rejects(
      checks.update(SYSTEM_ACTOR, ADMIN, created.id, { quorum: 2 }),
      (error: Invalid) => error instanceof Invalid && error.details?.['field'] === 'quorum',
    );
  });
});
