/**
 * A condition as closed value ranges: `v op t` (or `|v| op t`) holds exactly
 * when v lies in one of the ranges [lo, hi]. The run's SQL pre-filter compares
 * `value BETWEEN lo AND hi` in a hash join instead of evaluating a CASE over the
 * operator on each of ~600,000 latest values (about twice as fast); strict
 * bounds use the neighbouring double, so the result is the same as
 * conditionHolds() for every finite value (ranges.test.ts checks it).
 */
import type { Condition } from '../rules/condition.js';

export type Range = readonly [lo: number, hi: number];

const view = new DataView(new ArrayBuffer(8));

/** The smallest double greater than x. */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  view.setFloat64(0, x);
  view.setBigInt64(0, view.getBigInt64(0) + (x > 0 ? 1n : -1n));
  return view.getFloat64(0);
}

/** The largest double smaller than x. */
export function nextDown(x: number): number {
  return -nextUp(-x);
}

const ALL: Range[] = [[-Infinity, Infinity]];

function plain(operator: Condition['operator'], t: number): Range[] {
  switch (operator) {
    case '>':
      return [[nextUp(t), Infinity]];
    case '>=':
      return [[t, Infinity]];
    case '<':
      return [[-Infinity, nextDown(t)]];
    case '<=':
      return [[-Infinity, t]];
    case '==':
      return [[t, t]];
    case '!=':
      return [
        [-Infinity, nextDown(t)],
        [nextUp(t), Infinity],
      ];
  }
}

/** |v| op t, written on v itself. */
function absolute(operator: Condition['operator'], t: number): Range[] {
  switch (operator) {
    case '>':
      return t < 0
        ? ALL
        : [
            [nextUp(t), Infinity],
            [-Infinity, nextDown(-t)],
          ];
    case '>=':
      return t <= 0
        ? ALL
        : [
            [t, Infinity],
            [-Infinity, -t],
          ];
    case '<':
      return t <= 0 ? [] : [[nextUp(-t), nextDown(t)]];
    case '<=':
      return t < 0 ? [] : [[-t, t]];
    case '==':
      return t < 0
        ? []
        : t === 0
          ? [[0, 0]]
          : [
              [t, t],
              [-t, -t],
            ];
    case '!=':
      if (t < 0) return ALL;
      if (t === 0) return plain('!=', 0);
      return [
        [-Infinity, nextDown(-t)],
        [nextUp(-t), nextDown(t)],
        [nextUp(t), Infinity],
      ];
  }
}

export function conditionRanges(condition: Condition): Range[] {
  return condition.absolute
    ? absolute(condition.operator, condition.threshold)
    : plain(condition.operator, condition.threshold);
}
