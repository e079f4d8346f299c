/**
 * An agent deleted while checks run from it, on the real database: its place leaves each check's
 * locations and results, so the quorum is counted over the places left (a check that was UP with
 * one of three down turns DOWN on that one's next failure once the quorum is one of two), its
 * assignment goes, a late run of its buffer changes nothing, an explicit quorum follows the places
 * left, and a check that ran from it alone is paused until someone names a place again. A customer
 * deleted with its agents and the checks they ran goes whole.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CheckCreate } from '../../../contracts/checks.js';
import { ensureCheckRules } from '../../../db/seed-rules.js';
import { SYSTEM_ACTOR } from '../lib/audit-trail.js';
import { Invalid } from '../lib/errors.js';
import { createCustomersRepo } from '../customers/repo.js';
import { createSystemsRepo } from '../systems/repo.js';
import { auditTrailOn } from '../testing/audit.js';
import { agentRun } from '../testing/check-rig.js';
import { ADMIN } from '../testing/principals.js';
import { MINUTE, startEvaluationHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';
import { ASSIGNMENTS_TTL_MS, createAgentChecks, type AgentChecks } from './agent-checks.js';
import { checksPolicy } from './policy.js';
import { createChecksRepo } from './repo.js';
import { createCheckResults } from './results.js';
import { createChecksService, type ChecksService } from './service.js';

describe('an agent deleted while checks run from it', () => {
  let h: EvaluationHarness;
  let checks: ChecksService;
  let agents: AgentChecks;
  let deleteSystem: (id: number) => Promise<void>;
  before(async () => {
    h = await startEvaluationHarness();
    await ensureCheckRules(h.knex);
    const repo = createChecksRepo(h.knex);
    const results = createCheckResults({ repo, clock: h.clock });
    agents = createAgentChecks({ repo, results, box: h.box, clock: h.clock, log: h.logs.log });
    const audit = auditTrailOn(h.knex, h.clock);
    const policy = checksPolicy(true);
    checks = createChecksService({ repo, box: h.box, clock: h.clock, audit, policy, changed: () => agents.changed() });
    // what the systems service deletes with (DELETE /api/systems/:id)
    const systems = createSystemsRepo(h.knex);
    deleteSystem = (id) => systems.delete(id);
  });
  after(() => h.close());

  const run = (id: number, up: boolean) => agentRun(id, up, h.clock.now());

  const create = (customerId: number, locations: string[], quorum: number | null = null) =>
    checks.create(SYSTEM_ACTOR, ADMIN, {
      customerId,
      clusterId: null,
      name: `VPN ${locations.join(' ')}`,
      settings: { type: 'tcp', host: '10.0.0.5', port: 1194 },
      intervalSeconds: 60,
      timeoutSeconds: 5,
      retries: 0,
      retryIntervalSeconds: 20,
      maxResponseMs: null,
      locations,
      quorum,
      enabled: true,
    } satisfies CheckCreate);

  const placesOf = async (checkId: number) =>
    ((await h.knex('check_locations').where({ check_id: checkId }).orderBy('location')) as { location: string }[]).map(
      (row) => row.location,
    );

  it('takes the place out of the check, and the quorum follows the places left', async () => {
    const customerId = await h.customer();
    const [a, b, c] = [await h.system({ customerId }), await h.system({ customerId }), await h.system({ customerId })];
    const check = await create(customerId, [`system:${a.id}`, `system:${b.id}`, `system:${c.id}`]);
    assert.equal(check.effectiveQuorum, 2);
    const round = async (runs: [number, boolean][]) => {
      h.clock.advance(MINUTE);
      for (const [agent, up] of runs) await agents.recordRuns({ id: agent, customerId }, [run(check.id, up)]);
      return checks.get(ADMIN, check.id);
    };

    // one of three sees it down: UP
    let now = await round([
      [a.id, true],
      [b.id, false],
      [c.id, true],
    ]);
    assert.equal(now.state, 'UP');
    assert.deepEqual(await placesOf(check.id), [`system:${a.id}`, `system:${b.id}`, `system:${c.id}`].sort());

    await deleteSystem(a.id);
    now = await checks.get(ADMIN, check.id);
    assert.deepEqual(now.locations, [`system:${b.id}`, `system:${c.id}`]);
    assert.equal(now.effectiveQuorum, 1, 'all but one of the two places left');
    assert.deepEqual(
      now.results.map((r) => [r.location, r.state]),
      [
        [`system:${b.id}`, 'DOWN'],
        [`system:${c.id}`, 'UP'],
      ],
    );
    assert.deepEqual(await placesOf(check.id), [`system:${b.id}`, `system:${c.id}`].sort());

    // its assignment is gone once the agents' list is read again
    h.clock.advance(ASSIGNMENTS_TTL_MS + 1);
    assert.deepEqual(await agents.assignedTo({ id: a.id, customerId }), []);

    // the next failure of b is one of two: DOWN; a late run from a's buffer counts for nothing
    now = await round([
      [a.id, true],
      [b.id, false],
      [c.id, true],
    ]);
    assert.equal(now.state, 'DOWN');
    assert.deepEqual(await placesOf(check.id), [`system:${b.id}`, `system:${c.id}`].sort());
  });

  it('lowers an explicit quorum to the places left, and leaves other customers alone', async () => {
    const customerId = await h.customer();
    const [a, b] = [await h.system({ customerId }), await h.system({ customerId })];
    const check = await create(customerId, ['argus', `system:${a.id}`, `system:${b.id}`], 3);
    const other = await create(customerId, ['argus', `system:${b.id}`], 2);
    await deleteSystem(a.id);
    const now = await checks.get(ADMIN, check.id);
    assert.deepEqual([now.locations, now.quorum, now.effectiveQuorum], [['argus', `system:${b.id}`], 2, 2]);
    const untouched = await checks.get(ADMIN, other.id);
    assert.deepEqual([untouched.locations, untouched.quorum], [['argus', `system:${b.id}`], 2]);
  });

  it('pauses a check that ran from the deleted agent alone, until it is given a place', async () => {
    const customerId = await h.customer();
    const a = await h.system({ customerId });
    const check = await create(customerId, [`system:${a.id}`]);
    h.clock.advance(MINUTE);
    await agents.recordRuns({ id: a.id, customerId }, [run(check.id, false)]);
    assert.equal((await checks.get(ADMIN, check.id)).state, 'DOWN');

    await deleteSystem(a.id);
    const paused = await checks.get(ADMIN, check.id);
    assert.deepEqual(
      [paused.locations, paused.results, paused.enabled, paused.state, paused.failures, paused.quorum],
      [[], [], false, 'PAUSED', 0, null],
    );
    const system = await h.knex('systems').where({ id: check.id }).first('status');
    assert.equal(system.status, 'STANDBY', 'no alert of a check that runs nowhere');

    await assert.rejects(
      checks.update(SYSTEM_ACTOR, ADMIN, check.id, { enabled: true }),
      (error: unknown) => error instanceof Invalid && error.details?.['field'] === 'locations',
    );
    const resumed = await checks.update(SYSTEM_ACTOR, ADMIN, check.id, { enabled: true, locations: ['argus'] });
    assert.deepEqual([resumed.enabled, resumed.state, resumed.locations], [true, 'PENDING', ['argus']]);
  });

  it('deletes a customer with its agents and the checks they ran in one go', async () => {
    const customerId = await h.customer();
    const [a, b] = [await h.system({ customerId }), await h.system({ customerId })];
    const check = await create(customerId, ['argus', `system:${a.id}`, `system:${b.id}`]);
    h.clock.advance(MINUTE);
    await agents.recordRuns({ id: a.id, customerId }, [run(check.id, true)]);
    await createCustomersRepo(h.knex).deleteCustomer(customerId);
    assert.equal(await h.knex('checks').where({ id: check.id }).first(), undefined);
    assert.deepEqual(await placesOf(check.id), []);
    assert.equal(await h.knex('systems').whereIn('id', [a.id, b.id, check.id]).first(), undefined);
  });
});
