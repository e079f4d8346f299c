/**
 * mem.used_pct (MemAvailable, as `free` counts it), swap.used_pct (only where there is swap) and
 * mem.oom_kills (kills since the last look, from /proc/vmstat's oom_kill, Linux 4.13+).
 */
import { fieldsOf, numberOf, type Host } from '../host.js';
import { percent, sample, type Sample } from '../sample.js';

/** /proc/meminfo as kB by key. */
export function meminfo(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const [key, value] of fieldsOf(text)) {
    const number = numberOf(value);
    if (key && number !== null) values.set(key.replace(/:$/, ''), number);
  }
  return values;
}

export function memoryCollector(host: Host) {
  let previousKills: number | null = null;
  return async (): Promise<Sample[]> => {
    const samples: Sample[] = [];
    const info = meminfo((await host.read('/proc/meminfo')) ?? '');
    const total = info.get('MemTotal');
    // MemAvailable since Linux 3.14; before it, free + buffers + cache is the usual estimate
    const available = info.get('MemAvailable') ?? sum(info.get('MemFree'), info.get('Buffers'), info.get('Cached'));
    const used = total !== undefined && available !== undefined ? percent(total - available, total) : null;
    if (used !== null) samples.push(sample('mem.used_pct', used));
    const swapTotal = info.get('SwapTotal') ?? 0;
    const swapFree = info.get('SwapFree');
    if (swapTotal > 0 && swapFree !== undefined)
      samples.push(sample('swap.used_pct', (100 * (swapTotal - swapFree)) / swapTotal));

    const vmstat = fieldsOf((await host.read('/proc/vmstat')) ?? '').find(([key]) => key === 'oom_kill');
    const kills = numberOf(vmstat?.[1]);
    if (kills !== null && previousKills !== null)
      samples.push(sample('mem.oom_kills', Math.max(0, kills - previousKills)));
    previousKills = kills;
    return samples;
  };
}

function sum(...values: (number | undefined)[]): number | undefined {
  return values.every((v) => v !== undefined) ? values.reduce<number>((a, b) => a + (b as number), 0) : undefined;
}
