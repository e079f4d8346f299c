/**
 * Records this host's /proc, /sys and /etc files that the collectors read into a fixture:
 * `node --import tsx agent/test/record-fixture.ts NAME` → agent/test/fixtures/NAME.json.
 * Two looks 2 s apart, so the fixture carries moving counters.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { localHost } from '../src/host.js';
import { watchedMounts } from '../src/collectors/disks.js';

const FILES = [
  '/proc/stat',
  '/proc/meminfo',
  '/proc/vmstat',
  '/proc/loadavg',
  '/proc/self/mounts',
  '/proc/diskstats',
  '/proc/uptime',
  '/proc/sys/fs/file-nr',
  '/proc/sys/net/netfilter/nf_conntrack_count',
  '/proc/sys/net/netfilter/nf_conntrack_max',
  '/proc/mdstat',
  '/etc/os-release',
  '/etc/debian_version',
  '/proc/sys/kernel/osrelease',
  '/proc/sys/kernel/hostname',
  '/etc/machine-id',
  '/var/run/reboot-required',
];
const MOVING = ['/proc/stat', '/proc/vmstat', '/proc/diskstats', '/proc/uptime', '/proc/loadavg'];

async function look(paths: string[]): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of paths) {
    const text = await readFile(path, 'utf8').catch(() => null);
    if (text !== null)
      files[path] =
        path === '/proc/vmstat'
          ? text
              .split('\n')
              .filter((l) => l.startsWith('oom_kill'))
              .join('\n')
          : text;
  }
  return files;
}

const ls = (dir: string) => readdir(dir).catch(() => [] as string[]);
const paths = [...FILES];
for (const iface of await ls('/sys/class/net'))
  for (const file of [
    'operstate',
    ...['rx_bytes', 'tx_bytes', 'rx_errors', 'tx_errors', 'rx_dropped', 'tx_dropped'].map((c) => `statistics/${c}`),
  ])
    paths.push(`/sys/class/net/${iface}/${file}`);
for (const hwmon of await ls('/sys/class/hwmon'))
  for (const file of (await ls(`/sys/class/hwmon/${hwmon}`)).filter((f) => f === 'name' || /^temp\d+_input$/.test(f)))
    paths.push(`/sys/class/hwmon/${hwmon}/${file}`);
for (const pid of (await ls('/proc')).filter((p) => /^\d+$/.test(p))) paths.push(`/proc/${pid}/stat`);

const files = await look(paths);
const host = localHost();
const statfs: Record<string, unknown> = {};
const notDirectories: string[] = [];
for (const mount of watchedMounts(files['/proc/self/mounts'] ?? '')) {
  statfs[mount.path] = await host.statfs(mount.path);
  if (!(await host.isDirectory(mount.path))) notDirectories.push(mount.path);
}
await new Promise((resolve) => setTimeout(resolve, 2000));
const later = await look([...MOVING, ...paths.filter((p) => p.startsWith('/sys/class/net/'))]);
const name = process.argv[2] ?? 'host';
await writeFile(
  new URL(`./fixtures/${name}.json`, import.meta.url),
  `${JSON.stringify({ files, statfs, notDirectories, later }, null, 1)}\n`,
);
process.stdout.write(`recorded ${Object.keys(files).length} files into agent/test/fixtures/${name}.json\n`);
