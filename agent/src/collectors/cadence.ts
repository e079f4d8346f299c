/**
 * Some host tools cost far more than a report's budget (apt-get -s reads every package list: seconds
 * of CPU, 17 s on this loaded machine) or need not run every 30 s (a disk's SMART verdict): their
 * collector runs at most every `everyMs`, or sooner when `changed` says its input moved, and the
 * reports in between carry its last samples, so a rule's "for" period sees the value in every
 * report. Runs happen in the background: the first call waits `firstWaitMs` at most for the first
 * answer (`collect` and `once` wait for it all; the service 2 s, so a slow apt-get's count comes
 * with a later report rather than holding the first one back), later calls never wait.
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
  options: { now?: () => number; changed?: () => Promise<string>; firstWaitMs?: number } = {},
): Cadenced {
  const now = options.now ?? Date.now;
  const firstWaitMs = options.firstWaitMs ?? Infinity;
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
      const first = !last;
      running = refresh(key);
      if (first && firstWaitMs === Infinity) await running;
      else if (first) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, firstWaitMs)))]);
        clearTimeout(timer);
      }
    }
    return last?.samples ?? [];
  };
  return Object.assign(cadenced, { settled: async () => void (await running) });
}
