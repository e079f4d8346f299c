/**
 * Some host tools cost far more than a report's budget (apt-get -s reads every package list: seconds
 * of CPU, 17 s on this loaded machine) or need not run every 30 s (a disk's SMART verdict): their
 * collector runs at most every `everyMs`, or sooner when `changed` says its input moved, and the
 * reports in between carry its last samples, so a rule's "for" period sees the value in every
 * report. Only the first call waits for the tool (so `collect`, `once` and the first report have
 * its samples); later runs happen in the background and a slow tool never holds a report back.
 */
import type { Sample } from '../sample.js';

export interface Cadenced {
  (): Promise<Sample[]>;
  /** Resolves when no background run is under way (tests). */
  settled(): Promise<void>;
}

export function atMostEvery(
  everyMs: number,
  collect: () => Promise<Sample[]>,
  options: { now?: () => number; changed?: () => Promise<string> } = {},
): Cadenced {
  const now = options.now ?? Date.now;
  let last: { at: number; key: string; samples: Sample[] } | null = null;
  let running: Promise<void> | null = null;
  const refresh = async (key: string) => {
    const samples = await collect().catch(() => []);
    last = { at: now(), key, samples };
    running = null;
  };
  const cadenced = async () => {
    const key = options.changed ? await options.changed() : '';
    if (!running && (!last || now() - last.at >= everyMs || key !== last.key)) {
      running = refresh(key);
      if (!last) await running;
    }
    return last?.samples ?? [];
  };
  return Object.assign(cadenced, { settled: async () => void (await running) });
}
