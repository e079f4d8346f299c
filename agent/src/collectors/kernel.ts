/**
 * What the kernel tells in one read each: uptime.s, proc.zombies, fd.used_pct, conntrack.used_pct
 * (only where the conntrack module is loaded), raid.degraded per md array, temp.max_c per hwmon
 * sensor, system.reboot_required (Debian and Ubuntu's /var/run/reboot-required).
 */
import { numberOf, type Host } from '../host.js';
import { percent, sample, type Sample } from '../sample.js';
import { readProcStats, stateOf, type ProcStats } from './proc-stats.js';

export async function uptimeSeconds(host: Host): Promise<number | null> {
  return numberOf(((await host.read('/proc/uptime')) ?? '').split(/\s+/)[0]);
}

/** Processes in state Z, from the stat lines the processes collector reads too. */
async function zombies(stats: ProcStats): Promise<number> {
  return (await stats()).filter((stat) => stateOf(stat.text) === 'Z').length;
}

/** Per md array, the members missing: the underscores of its `[UU_]` status line. */
export function degradedArrays(mdstat: string): Map<string, number> {
  const arrays = new Map<string, number>();
  let current: string | null = null;
  for (const line of mdstat.split('\n')) {
    const header = /^(md\w*)\s*:/.exec(line);
    if (header) current = header[1] as string;
    const status = /\[([U_]+)\]\s*$/.exec(line);
    if (current && status) {
      arrays.set(current, (status[1] as string).split('').filter((c) => c === '_').length);
      current = null;
    }
  }
  return arrays;
}

async function temperatures(host: Host): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (const hwmon of (await host.list('/sys/class/hwmon')).sort()) {
    const base = `/sys/class/hwmon/${hwmon}`;
    const name = ((await host.read(`${base}/name`)) ?? hwmon).trim();
    const inputs = (await host.list(base)).filter((file) => /^temp\d+_input$/.test(file));
    const readings = (await Promise.all(inputs.map((file) => host.read(`${base}/${file}`).then(numberOf)))).filter(
      (value): value is number => value !== null,
    );
    // millidegrees; several chips share a driver name, so the hwmon index keeps instances apart
    if (readings.length) samples.push(sample('temp.max_c', Math.max(...readings) / 1000, `${name}/${hwmon}`));
  }
  return samples;
}

/** `stats`: the collection's shared stat lines (collect.ts), or this collector's own read. */
export function kernelCollector(host: Host, stats: ProcStats = () => readProcStats(host)) {
  return async (): Promise<Sample[]> => {
    const samples: Sample[] = [];
    const uptime = await uptimeSeconds(host);
    if (uptime !== null) samples.push(sample('uptime.s', Math.floor(uptime)));
    samples.push(sample('proc.zombies', await zombies(stats)));

    const [allocated, , max] = ((await host.read('/proc/sys/fs/file-nr')) ?? '').trim().split(/\s+/).map(numberOf);
    const fds = allocated != null && max != null ? percent(allocated, max) : null;
    if (fds !== null) samples.push(sample('fd.used_pct', fds));

    const tracked = numberOf(await host.read('/proc/sys/net/netfilter/nf_conntrack_count'));
    const limit = numberOf(await host.read('/proc/sys/net/netfilter/nf_conntrack_max'));
    const conntrack = tracked !== null && limit !== null ? percent(tracked, limit) : null;
    if (conntrack !== null) samples.push(sample('conntrack.used_pct', conntrack));

    const mdstat = await host.read('/proc/mdstat');
    if (mdstat)
      for (const [array, missing] of degradedArrays(mdstat)) samples.push(sample('raid.degraded', missing, array));

    samples.push(...(await temperatures(host)));

    // Debian and Ubuntu leave this file after an upgrade that needs a reboot; elsewhere: not known
    const debianLike = (await host.read('/etc/debian_version')) !== null;
    if (debianLike)
      samples.push(sample('system.reboot_required', (await host.read('/var/run/reboot-required')) !== null ? 1 : 0));
    return samples;
  };
}
