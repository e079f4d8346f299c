import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSeriesSets, packed } from './series-sets.js';

const samples = (...series: [string, string | undefined, number][]) =>
  series.map(([name, instance, value]) => (instance === undefined ? { name, value } : { name, instance, value }));

describe('series sets: a report packed as its set and values', () => {
  it('keeps the values in order, exactly (no rounding on the way)', () => {
    const values = [0.1, 31_536_123, 1e21, -0, 123_456_789_012_345, 5e-324];
    const { set, values: out } = packed(values.map((value, k) => ({ name: `m.${k}`, value })));
    assert.deepEqual(out, values);
    assert.ok(Object.is(out[3], -0));
    assert.deepEqual(set.instances, ['', '', '', '', '', '']);
  });

  it("gives a system's reports of one set the same object, and another system of that set too", () => {
    const sets = createSeriesSets();
    const a = sets.pack(1, samples(['cpu', undefined, 1], ['disk', '/', 2]));
    const b = sets.pack(1, samples(['cpu', '', 3], ['disk', '/', 4]));
    const c = sets.pack(2, samples(['cpu', undefined, 5], ['disk', '/', 6]));
    assert.equal(a.set, b.set, 'an absent instance and "" are one series');
    assert.equal(a.set, c.set, 'systems of one set share it');
    assert.deepEqual(
      [a.values, b.values, c.values],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    );
  });

  it('makes a new set when the series change, and goes back to the old one', () => {
    const sets = createSeriesSets();
    const before = sets.pack(1, samples(['cpu', undefined, 1], ['disk', '/', 2]));
    before.set.id = 7;
    const mounted = sets.pack(1, samples(['cpu', undefined, 1], ['disk', '/', 2], ['disk', '/data', 3]));
    const reordered = sets.pack(1, samples(['disk', '/', 2], ['cpu', undefined, 1]));
    const renamed = sets.pack(1, samples(['cpu', undefined, 1], ['disk', '/boot', 2]));
    const back = sets.pack(1, samples(['cpu', undefined, 9], ['disk', '/', 8]));
    assert.deepEqual(mounted.set.instances, ['', '/', '/data']);
    assert.deepEqual(reordered.set.names, ['disk', 'cpu']);
    assert.deepEqual(renamed.set.instances, ['', '/boot']);
    for (const other of [mounted, reordered, renamed]) assert.notEqual(other.set, before.set);
    assert.equal(back.set, before.set, 'the first set again, with its id');
    assert.equal(back.set.id, 7);
    assert.deepEqual(back.values, [9, 8]);
  });

  it('tells a name with a separator in its instance from two series', () => {
    const sets = createSeriesSets();
    const one = sets.pack(1, samples(['a', 'x\u0000b', 1]));
    const two = sets.pack(2, samples(['a', 'x', 1], ['b', undefined, 2]));
    assert.notEqual(one.set, two.set);
  });

  it('packs a report without samples as an empty set', () => {
    const { set, values } = createSeriesSets().pack(1, []);
    assert.deepEqual([set.names, values], [[], []]);
  });
});
