/**
 * The overview's shared computation (overview/recent.ts): HTTP always computes, the snapshot takes
 * a computation of the same visible set that is recent and not forgotten. A fake clock for the age.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Visible } from '../lib/access.js';
import { FakeClock } from '../lib/clock.js';
import { shareRecentOverviews } from './recent.js';

function counting() {
  const calls: Visible[] = [];
  let fail = false;
  const compute = async (visible: Visible) => {
    calls.push(visible);
    if (fail) throw new Error('database away');
    return { computation: calls.length };
  };
  return { calls, compute, failNext: (value: boolean) => (fail = value) };
}

describe('shareRecentOverviews', () => {
  it('lets the snapshot take the computation GET /api/overview just started, for the same customers only', async () => {
    const clock = new FakeClock(new Date('2026-11-26T10:00:00Z'));
    const { calls, compute } = counting();
    const shared = shareRecentOverviews(compute, { clock, maxAgeMs: 2_000 });

    const answered = shared.compute(new Set([2, 1]));
    // still running: the snapshot joins it; the same set in another order is the same audience
    assert.equal(shared.recentOrCompute(new Set([1, 2])), answered);
    assert.deepEqual(await shared.recentOrCompute(new Set([1, 2])), { computation: 1 });
    // another audience (all customers, or other ones) computes its own
    assert.deepEqual(await shared.recentOrCompute(null), { computation: 2 });
    assert.deepEqual(await shared.recentOrCompute(new Set([1])), { computation: 3 });
    // HTTP never takes a shared answer: an API client reads its own writes
    assert.deepEqual(await shared.compute(new Set([1, 2])), { computation: 4 });
    assert.equal(calls.length, 4);
  });

  it('computes afresh once the answer is older than the age limit', async () => {
    const clock = new FakeClock(new Date('2026-11-26T10:00:00Z'));
    const { compute } = counting();
    const shared = shareRecentOverviews(compute, { clock, maxAgeMs: 2_000 });
    await shared.compute(null);
    clock.advance(2_000);
    assert.deepEqual(await shared.recentOrCompute(null), { computation: 1 });
    clock.advance(1);
    assert.deepEqual(await shared.recentOrCompute(null), { computation: 2 });
  });

  it('computes afresh after a change was announced (forget), even while the shared one is still running', async () => {
    const clock = new FakeClock(new Date('2026-11-26T10:00:00Z'));
    const { compute } = counting();
    const shared = shareRecentOverviews(compute, { clock });
    const running = shared.compute(null);
    shared.forget();
    assert.notEqual(shared.recentOrCompute(null), running);
    assert.deepEqual(await running, { computation: 1 });
    assert.deepEqual(await shared.recentOrCompute(null), { computation: 2 });
  });

  it('does not share a failed computation', async () => {
    const clock = new FakeClock(new Date('2026-11-26T10:00:00Z'));
    const { compute, failNext } = counting();
    const shared = shareRecentOverviews(compute, { clock });
    failNext(true);
    await assert.rejects(shared.compute(null), /database away/);
    failNext(false);
    assert.deepEqual(await shared.recentOrCompute(null), { computation: 2 });
  });
});
