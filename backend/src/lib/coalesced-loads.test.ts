import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coalescedLoads } from './coalesced-loads.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A loader whose calls are recorded and answered when the test says so. */
function heldLoader(maxInFlight?: number) {
  const calls: { keys: string[]; answer(values: Map<string, string> | Error): void }[] = [];
  const load = coalescedLoads(
    (keys: string[]) =>
      new Promise<Map<string, string>>((resolve, reject) => {
        calls.push({ keys, answer: (values) => (values instanceof Error ? reject(values) : resolve(values)) });
      }),
    maxInFlight,
  );
  return { load, calls };
}

const upper = (keys: string[]) => new Map(keys.map((key) => [key, key.toUpperCase()]));

describe('coalesced loads', () => {
  it('loads the keys of one turn in one call, each once, and answers undefined for a key not found', async () => {
    const { load, calls } = heldLoader();
    const asked = [load('a'), load('b'), load('a'), load('gone')];
    await nextTurn();
    assert.deepEqual(
      calls.map((call) => call.keys),
      [['a', 'b', 'gone']],
    );
    calls[0]?.answer(new Map([...upper(['a', 'b'])]));
    assert.deepEqual(await Promise.all(asked), ['A', 'B', 'A', undefined]);
  });

  it('holds the keys asked for while a load is in flight, and sends them together when it returns', async () => {
    const { load, calls } = heldLoader();
    const first = load('a');
    await nextTurn();
    const second = load('b');
    await nextTurn();
    const third = load('c');
    await nextTurn();
    assert.equal(calls.length, 1, 'nothing more while the first is in flight');
    calls[0]?.answer(upper(['a']));
    assert.equal(await first, 'A');
    await nextTurn();
    assert.deepEqual(
      calls.map((call) => call.keys),
      [['a'], ['b', 'c']],
    );
    calls[1]?.answer(upper(['b', 'c']));
    assert.deepEqual(await Promise.all([second, third]), ['B', 'C']);
  });

  it("with more loads allowed in flight, sends a later turn's keys at once", async () => {
    const { load, calls } = heldLoader(Infinity);
    const first = load('a');
    await nextTurn();
    const second = load('b');
    await nextTurn();
    assert.deepEqual(
      calls.map((call) => call.keys),
      [['a'], ['b']],
    );
    calls[1]?.answer(upper(['b']));
    calls[0]?.answer(upper(['a']));
    assert.deepEqual(await Promise.all([first, second]), ['A', 'B']);
  });

  it('fails the asks of a failed load, and the next ones load anew', async () => {
    const { load, calls } = heldLoader();
    const failed = Promise.allSettled([load('a'), load('b')]);
    await nextTurn();
    calls[0]?.answer(new Error('database away'));
    assert.deepEqual(
      (await failed).map((result) => result.status),
      ['rejected', 'rejected'],
    );
    const again = load('a');
    await nextTurn();
    calls[1]?.answer(upper(['a']));
    assert.equal(await again, 'A');
  });
});
