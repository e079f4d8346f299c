/**
 * disk.smart_ok{device} (1 = the drive's own SMART verdict is PASSED, 0 = FAILED), where smartctl
 * (smartmontools 7+, for its JSON) is installed: `smartctl --scan -j` lists the drives, then
 * `smartctl -H -j -n standby -d <type> <device>` asks each for its verdict. `-n standby` leaves a
 * sleeping disk asleep (no verdict that time). Opening a drive needs root or the `disk` group; a
 * drive that cannot be opened, has no SMART (virtual disks) or sleeps gives no sample, never 0.
 */
import type { RunTool } from '../run-tool.js';
import { sample, type Sample } from '../sample.js';

interface ScannedDevice {
  name?: unknown;
  type?: unknown;
}

const json = (text: string): Record<string, unknown> | null => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
};

/** `/dev/sda` → `sda`; drives behind a RAID controller share a path, so their type tells them apart. */
export function smartInstance(name: string, type: string): string {
  const device = name.replace(/^\/dev\//, '');
  return type.includes(',') ? `${device} [${type}]` : device;
}

export function smartCollector(run: RunTool) {
  return async (): Promise<Sample[]> => {
    const scan = await run('smartctl', ['--scan', '-j']);
    const devices = scan ? (json(scan.stdout)?.['devices'] as ScannedDevice[] | undefined) : undefined;
    if (!Array.isArray(devices)) return [];
    const samples: Sample[] = [];
    for (const { name, type } of devices) {
      if (typeof name !== 'string' || typeof type !== 'string') continue;
      const health = await run('smartctl', ['-H', '-j', '-n', 'standby', '-d', type, name]);
      const status = health ? (json(health.stdout)?.['smart_status'] as { passed?: unknown } | undefined) : undefined;
      if (typeof status?.passed === 'boolean')
        samples.push(sample('disk.smart_ok', status.passed ? 1 : 0, smartInstance(name, type)));
    }
    return samples;
  };
}
