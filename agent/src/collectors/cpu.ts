/** cpu.usage_pct, cpu.iowait_pct, cpu.steal_pct from /proc/stat, as shares of the time since the last look. */
import { fieldsOf, type Host } from '../host.js';
import { percent, sample, type Sample } from '../sample.js';

interface CpuTimes {
  total: number;
  idle: number;
  iowait: number;
  steal: number;
}

/** The aggregate `cpu` line: user nice system idle iowait irq softirq steal (guest time is inside user). */
export function cpuTimes(stat: string): CpuTimes | null {
  const line = fieldsOf(stat).find((fields) => fields[0] === 'cpu');
  if (!line) return null;
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.slice(1).map(Number);
  if ([user, nice, system, idle].some((n) => n === undefined || !Number.isFinite(n))) return null;
  const total =
    (user as number) + (nice as number) + (system as number) + (idle as number) + iowait + irq + softirq + steal;
  return { total, idle: idle as number, iowait, steal };
}

/** How many CPUs the kernel counts (`cpuN` lines). */
export function cpuCount(stat: string): number {
  return fieldsOf(stat).filter((fields) => /^cpu\d+$/.test(fields[0] ?? '')).length;
}

export function cpuCollector(host: Host) {
  let previous: CpuTimes | null = null;
  return async (): Promise<Sample[]> => {
    const text = await host.read('/proc/stat');
    const now = text ? cpuTimes(text) : null;
    const before = previous;
    previous = now;
    if (!now || !before || now.total <= before.total) return [];
    const elapsed = now.total - before.total;
    const share = (part: number) => percent(part, elapsed) as number;
    return [
      sample('cpu.usage_pct', 100 - share(now.idle - before.idle + (now.iowait - before.iowait))),
      sample('cpu.iowait_pct', share(now.iowait - before.iowait)),
      sample('cpu.steal_pct', share(now.steal - before.steal)),
    ];
  };
}
