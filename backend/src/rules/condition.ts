/**
 * A metric rule's condition on one value, and instance globs. Pure: the
 * evaluation run and the rule editor's preview ("which systems would fire now")
 * share it, so the preview never disagrees with the run.
 */
import type { Operator } from '../../../contracts/rules.js';

export interface Condition {
  operator: Operator;
  threshold: number;
  /** Compare |value| (clock.skew: an offset of -3000 ms is as bad as +3000 ms). */
  absolute: boolean;
}

export function conditionHolds(condition: Condition, value: number): boolean {
  const v = condition.absolute ? Math.abs(value) : value;
  const t = condition.threshold;
  switch (condition.operator) {
    case '>':
      return v > t;
    case '>=':
      return v >= t;
    case '<':
      return v < t;
    case '<=':
      return v <= t;
    case '==':
      return v === t;
    case '!=':
      return v !== t;
  }
}

/**
 * `*` (any run) and `?` (one character) over the whole of `text`, everything else
 * literal. Greedy two-pointer matching, at most pattern × text steps: a glob
 * turned into a backtracking RegExp (`.*a.*a.*a…b`) takes exponential time on
 * a near miss, and an operator's rule or an agent's instance name could then
 * stall the whole process (evaluation run, rule preview).
 */
export function wildcardMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1; // position of the last `*` seen in the pattern
  let resume = 0; // where in the text that `*` currently ends
  while (t < text.length) {
    const ch = pattern[p];
    if (ch !== undefined && ch !== '*' && (ch === '?' || ch === text[t])) {
      p += 1;
      t += 1;
    } else if (ch === '*') {
      star = p;
      p += 1;
      resume = t;
    } else if (star !== -1) {
      p = star + 1;
      resume += 1;
      t = resume;
    } else return false;
  }
  while (pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/**
 * Shell-like glob over an instance name: `*` any run of characters, `?` one
 * character, everything else literal. A null or empty glob matches every instance.
 */
export function instanceMatches(glob: string | null | undefined, instance: string): boolean {
  if (!glob) return true;
  return wildcardMatches(glob, instance);
}
