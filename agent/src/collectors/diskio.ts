/**
 * disk.io_util_pct per block device: the share of wall time the device was busy since the last look
 * (/proc/diskstats' io_ticks, as iostat's %util). Partitions, loop and RAM disks are skipped as
 * node_exporter's diskstats collector skips them.
 */
import { fieldsOf, numberOf, type Host } from '../host.js';
import { sample, type Sample } from '../sample.js';

// node_exporter's list, plus SD/eMMC partitions (mmcblk0p2), which it would count twice with their disk
const SKIPPED_DEVICES = /^(z?ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\d+n\d+p|mmcblk\d+p)\d+$/;

/** io_ticks (ms busy) per device: the 13th field of each line. */
export function busyMilliseconds(text: string): Map<string, number> {
  const busy = new Map<string, number>();
  for (const fields of fieldsOf(text)) {
    const device = fields[2];
    const ticks = numberOf(fields[12]);
    if (device && ticks !== null && !SKIPPED_DEVICES.test(device)) busy.set(device, ticks);
  }
  return busy;
}

export function diskIoCollector(host: Host, clock: () => number = () => performance.now()) {
  let previous: { at: number; busy: Map<string, number> } | null = null;
  return async (): Promise<Sample[]> => {
    const now = { at: clock(), busy: busyMilliseconds((await host.read('/proc/diskstats')) ?? '') };
    const before = previous;
    previous = now;
    if (!before || now.at <= before.at) return [];
    const samples: Sample[] = [];
    for (const [device, ticks] of now.busy) {
      const earlier = before.busy.get(device);
      if (earlier === undefined || ticks < earlier) continue;
      samples.push(sample('disk.io_util_pct', Math.min(100, (100 * (ticks - earlier)) / (now.at - before.at)), device));
    }
    return samples;
  };
}
