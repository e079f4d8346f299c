/**
 * The recording of results as agents send them: three agents that run the same checks recording at
 * the same moment, each in its own order (none waits on another in a circle; every run and every
 * place kept; the quorum decided on all of them), and a run that changes nothing of its check's
 * state, which writes the run and its place but leaves the check's row as it was.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProbeResult } from '../../../probes/probe.js';
import { agentTcpCheck } from '../testing/check-rig.js';
import { startEvaluationHarness, type EvaluationHarness } from '../testing/evaluation-harness.js';
import { createChecksRepo, type ChecksRepo } from './repo.js';
import { createCheckResults, type CheckResults } from './results.js';

const result = (at: Date, up: boolean): ProbeResult => ({
  at,
  up,
  reason: up ? null : 'connection refused',
  responseMs: up ? 12 : null,
  status: null,
  keywordMatched: null,
  certDaysLeft: null,
  certValid: null,
  packetLossPct: null,
  slow: false,
});

describe('check results recorded from agents', () => {
  let h: EvaluationHarness;
  let repo: ChecksRepo;
  let results: CheckResults;
  before(async () => {
    h = await startEvaluationHarness();
    repo = createChecksRepo(h.knex);
    results = createCheckResults({ repo, clock: h.clock });
  });
  after(() => h.close());

  async function checksRunFrom(customerId: number, places: number[], count: number): Promise<number[]> {
    return h.knex.transaction(async (trx) => {
      const ids: number[] = [];
      for (let i = 0; i < count; i++) ids.push(await repo.insert(agentTcpCheck(customerId, `vpn ${i}`, places), trx));
      return ids;
    });
  }

  const checkRow = async (id: number) =>
    (await h.knex('checks').where({ id }).first('state', 'state_since', 'xmin')) as {
      state: string;
      state_since: Date | null;
      xmin: string;
    };

  it('three agents sharing checks record at once, each in its own order', async () => {
    const customerId = await h.customer();
    const agents = [await h.system({ customerId }), await h.system({ customerId }), await h.system({ customerId })];
    const ids = await checksRunFrom(
      customerId,
      agents.map((a) => a.id),
      12,
    );
    const rounds = 4;
    for (let round = 0; round < rounds; round++) {
      const at = h.clock.now().getTime();
      // two of three see every check down (the quorum): each agent sends its runs in another order
      await Promise.all(
        agents.map((agent, k) => {
          const order = k === 1 ? [...ids].reverse() : k === 2 ? [...ids.slice(6), ...ids.slice(0, 6)] : ids;
          return results.recordAgentRuns(
            agent.id,
            customerId,
            order.map((checkId) => ({ checkId, result: result(new Date(at + k), k === 2) })),
          );
        }),
      );
      h.clock.advance(20_000);
    }
    const stored = await h.knex('metrics').whereIn('system_id', ids).count<{ n: string }[]>({ n: '*' });
    assert.equal(Number(stored[0]?.n), ids.length * agents.length * rounds, 'every run stored');
    const places = (await h.knex('check_locations').whereIn('check_id', ids).select('state')) as { state: string }[];
    assert.deepEqual(
      [places.length, places.filter((p) => p.state === 'DOWN').length],
      [ids.length * 3, ids.length * 2],
    );
    for (const id of ids) assert.equal((await checkRow(id)).state, 'DOWN');
  });

  it('a run that changes nothing of its check leaves the check row alone', async () => {
    const customerId = await h.customer();
    const agent = await h.system({ customerId });
    const [id] = (await checksRunFrom(customerId, [agent.id], 1)) as [number];
    const record = (up: boolean) => {
      h.clock.advance(20_000);
      return results.recordAgentRuns(agent.id, customerId, [{ checkId: id, result: result(h.clock.now(), up) }]);
    };
    await record(true);
    const up = await checkRow(id);
    assert.equal(up.state, 'UP');
    await record(true);
    const second = h.clock.now().toISOString();
    assert.equal((await checkRow(id)).xmin, up.xmin, 'no write of the check row');
    const check = await repo.find(id);
    assert.equal(check?.lastResult?.['at'], second, 'the check answers the newest run as its last');
    const place = (await h.knex('check_locations').where({ check_id: id }).first('at')) as { at: Date };
    assert.equal(place.at.toISOString(), second);
    const stored = await h.knex('metrics').where({ system_id: id }).count<{ n: string }[]>({ n: '*' });
    assert.equal(Number(stored[0]?.n), 2);
    await record(false);
    const down = await checkRow(id);
    assert.deepEqual([down.state, down.state_since?.toISOString()], ['DOWN', h.clock.now().toISOString()]);
  });
});
