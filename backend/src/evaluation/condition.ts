/**
 * A metric rule's condition on one value, and instance globs. Pure: the
 * evaluation run and the rule editor's preview ("which systems would fire now")
 * share it, so the preview never disagrees with the run.
 */
export type Operator = '>' | '>=' | '<' | '<=' | '==' | '!=';
export const OPERATORS: readonly Operator[] = ['>', '>=', '<', '<=', '==', '!='];

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

const globCache = new Map<string, RegExp>();

/**
 * Shell-like glob over an instance name: `*` any run of characters, `?` one
 * character, everything else literal. A null or empty glob matches every instance.
 */
export function instanceMatches(glob: string | null | undefined, instance: string): boolean {
  if (!glob) return true;
  let pattern = globCache.get(glob);
  if (!pattern) {
    const source = glob
      .split('')
      .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
      .join('');
    pattern = new RegExp(`^${source}$`, 's');
    if (globCache.size > 1000) globCache.clear();
    globCache.set(glob, pattern);
  }
  return pattern.test(instance);
}
