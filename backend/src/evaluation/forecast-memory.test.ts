/**
 * What the forecast step keeps between runs: which systems are due for a refit (never fitted first,
 * then the longest ago, a share of the fleet a run), and that a failed run's memory is read again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createForecastMemory, dueSystems, refitsPerRun, type RefitBook } from './forecast-memory.js';
import type { SystemInfo } from './types.js';

const HOUR = 3_600_000;
const THROUGH = Date.UTC(2026, 2, 2, 12);

const system = (id: number, status: SystemInfo['status'] = 'ONLINE'): SystemInfo => ({
  id,
  customerId: 1,
  clusterId: null,
  status,
  lastSeenAt: new Date(THROUGH),
  offlineAlerts: true,
});

describe('forecast memory', () => {
  it('spreads the refits of an hour over its runs: a share of the reporting fleet, all of a small one', () => {
    assert.equal(refitsPerRun(10_000), 182);
    assert.equal(refitsPerRun(100_000), 1819);
    assert.equal(refitsPerRun(7), 20, 'a small fleet: every due system in one run');
  });

  it('picks the never-fitted systems first, then the longest ago, and leaves out pending and current ones', () => {
    const book: RefitBook = new Map([
      [1, { through: THROUGH - 2 * HOUR, windowHours: 24 }],
      [2, { through: THROUGH, windowHours: 24 }],
      [3, { through: THROUGH - HOUR, windowHours: 24 }],
      [4, { through: THROUGH, windowHours: 48 }],
      [5, { through: THROUGH - 3 * HOUR, windowHours: 24 }],
    ]);
    const systems = [system(5), system(4), system(3), system(2), system(1), system(9), system(8, 'PENDING'), system(7)];
    assert.deepEqual(dueSystems(book, systems, THROUGH, 24, 10), [7, 9, 5, 1, 3, 4], 'a changed window: due');
    assert.deepEqual(dueSystems(book, systems, THROUGH, 24, 3), [7, 9, 5]);
    assert.deepEqual(dueSystems(book, systems, THROUGH, 24, 1), [7]);
  });

  it('reads the refits once, and again after a failed run forgot them', async () => {
    const memory = createForecastMemory();
    let reads = 0;
    const load = async () => {
      reads += 1;
      return [{ systemId: 1, through: new Date(THROUGH), windowHours: 24 }];
    };
    const book = await memory.refits('disk.used_pct', load);
    book.set(2, { through: THROUGH, windowHours: 24 });
    assert.equal((await memory.refits('disk.used_pct', load)).size, 2, 'kept with the run’s refits');
    assert.equal(reads, 1);
    memory.keep('rules', new Date(THROUGH), []);
    memory.forget();
    assert.equal((await memory.refits('disk.used_pct', load)).size, 1, 'as the table has them');
    assert.equal(reads, 2);
    assert.equal(memory.lines('rules', new Date(THROUGH)), null, 'the lines are read again too');
  });
});
