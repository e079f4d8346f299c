/**
 * Some host tools cost far more than a report's budget (apt-get -s reads every package list, about a
 * second of CPU) or need not run every 30 s (a disk's SMART verdict): their collector runs at most
 * every `everyMs`, or sooner when `changed` says its input moved, and the reports in between carry
 * its last samples, so a rule's "for" period sees the value in every report.
 */
import type { Sample } from '../sample.js';

export function atMostEvery(
  everyMs: number,
  collect: () => Promise<Sample[]>,
  options: { now?: () => number; changed?: () => Promise<string> } = {},
): () => Promise<Sample[]> {
  const now = options.now ?? Date.now;
  let last: { at: number; key: string; samples: Sample[] } | null = null;
  return async () => {
    const key = options.changed ? await options.changed() : '';
    if (last && now() - last.at < everyMs && key === last.key) return last.samples;
    const samples = await collect();
    last = { at: now(), key, samples };
    return samples;
  };
}
