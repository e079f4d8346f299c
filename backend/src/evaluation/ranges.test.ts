import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conditionHolds, type Condition } from '../rules/condition.js';
import { OPERATORS } from '../../../contracts/rules.js';
import { conditionRanges, nextDown, nextUp } from './ranges.js';

describe('conditionRanges', () => {
  it('steps to the neighbouring doubles', () => {
    assert.equal(nextUp(0), Number.MIN_VALUE);
    assert.equal(nextDown(0), -Number.MIN_VALUE);
    assert.equal(nextUp(1), 1 + Number.EPSILON);
    assert.ok(nextUp(-1) > -1 && nextUp(-1) - -1 < 1e-15);
    assert.ok(nextDown(85) < 85 && 85 - nextDown(85) < 1e-13);
  });

  it('holds exactly where conditionHolds does, for every operator, plain and absolute', () => {
    const thresholds = [-3000, -1, -0.5, 0, 0.5, 1, 2, 14, 85, 95, 2000, 1e9];
    const values = [
      -1e12,
      -3000.0001,
      -3000,
      -2999.9999,
      -2000,
      -1,
      -0.5,
      -Number.MIN_VALUE,
      0,
      Number.MIN_VALUE,
      0.5,
      1,
    ];
    values.push(...values.map((v) => -v), 2, 13.999999, 14, 14.000001, 85, nextUp(85), nextDown(85), 95, 96, 1e9, 1e12);
    for (let i = 0; i < 200; i++) values.push((Math.random() - 0.5) * 10_000);
    for (const operator of OPERATORS) {
      for (const threshold of thresholds) {
        for (const absolute of [false, true]) {
          const condition: Condition = { operator, threshold, absolute };
          const ranges = conditionRanges(condition);
          for (const value of values) {
            const inRange = ranges.some(([lo, hi]) => lo <= value && value <= hi);
            assert.equal(
              inRange,
              conditionHolds(condition, value),
              `${absolute ? '|v|' : 'v'} ${operator} ${threshold} at ${value}`,
            );
          }
        }
      }
    }
  });
});
