/** load.1, load.5, load.15 and load.per_core_5 from /proc/loadavg. */
import { numberOf, type Host } from '../host.js';
import { sample, type Sample } from '../sample.js';

export function loadCollector(host: Host, cores: () => Promise<number>) {
  return async (): Promise<Sample[]> => {
    const [one, five, fifteen] = ((await host.read('/proc/loadavg')) ?? '').trim().split(/\s+/).map(numberOf);
    if (one == null || five == null || fifteen == null) return [];
    const count = await cores();
    return [
      sample('load.1', one),
      sample('load.5', five),
      sample('load.15', fifteen),
      ...(count > 0 ? [sample('load.per_core_5', five / count)] : []),
    ];
  };
}
