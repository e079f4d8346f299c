/**
 * Half-open stretches of absolute time, [start, end) in epoch milliseconds, and the set arithmetic
 * the availability report is made of. Pure: no clock, no zone, no database.
 */
export type Interval = readonly [start: number, end: number];

/** Sorted, without empty stretches, overlapping or touching stretches merged. */
export function normalize(intervals: Iterable<Interval>): Interval[] {
  const sorted = [...intervals].filter(([start, end]) => end > start).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** The parts of `intervals` inside `range`. */
export function clip(intervals: Iterable<Interval>, [from, to]: Interval): Interval[] {
  return normalize([...intervals].map(([start, end]): Interval => [Math.max(start, from), Math.min(end, to)]));
}

/** What of `a` is not in `b`. */
export function subtract(a: Iterable<Interval>, b: Iterable<Interval>): Interval[] {
  const cut = normalize(b);
  const out: Interval[] = [];
  for (const [start, end] of normalize(a)) {
    let cursor = start;
    for (const [cutStart, cutEnd] of cut) {
      if (cutEnd <= cursor) continue;
      if (cutStart >= end) break;
      if (cutStart > cursor) out.push([cursor, cutStart]);
      cursor = Math.max(cursor, cutEnd);
      if (cursor >= end) break;
    }
    if (cursor < end) out.push([cursor, end]);
  }
  return out;
}

/** What `a` and `b` have in common. */
export function intersect(a: Iterable<Interval>, b: Iterable<Interval>): Interval[] {
  const left = normalize(a);
  return subtract(left, subtract(left, b));
}

export function total(intervals: Iterable<Interval>): number {
  let sum = 0;
  for (const [start, end] of normalize(intervals)) sum += end - start;
  return sum;
}

/** Stretches that carry the ids of what caused them (alerts), merged where they overlap or touch. */
export interface Tagged {
  start: number;
  end: number;
  ids: number[];
}

export function mergeTagged(items: Iterable<Tagged>): Tagged[] {
  const sorted = [...items].filter((item) => item.end > item.start).sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Tagged[] = [];
  for (const item of sorted) {
    const last = out.at(-1);
    if (last && item.start <= last.end) {
      last.end = Math.max(last.end, item.end);
      for (const id of item.ids) if (!last.ids.includes(id)) last.ids.push(id);
    } else out.push({ start: item.start, end: item.end, ids: [...item.ids] });
  }
  return out;
}
