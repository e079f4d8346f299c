/**
 * disk.used_pct, disk.inodes_used_pct and disk.readonly per mount point, from /proc/self/mounts
 * and statfs(2). Pseudo and container file systems are skipped the way node_exporter's filesystem
 * collector skips them (its default fs-types and mount-points exclusions), with two differences for
 * containers (Docker, LXC): the container's own overlay root at `/` is its disk and is reported with
 * its statfs figures (overlay anywhere else is another container's root, seen from its host, and
 * stays skipped), and a mount whose target is not a directory (the single files a container engine
 * bind-mounts: /etc/hosts, /etc/resolv.conf, /etc/hostname) is no disk.
 *
 * disk.readonly is 1 only for a file system that turned read-only (what the default rule alerts on:
 * ext4's errors=remount-ro, a failing disk): one /etc/fstab mounts writable, or, when fstab does not
 * list it, one this agent saw writable before. A file system read-only by design (`ro` in fstab, or
 * read-only from the agent's first look: a squashfs-like tmpfs, a read-only bind mount) is 0.
 */
import { fieldsOf, type Host } from '../host.js';
import { percent, sample, type Sample } from '../sample.js';

const SKIPPED_TYPES =
  /^(autofs|binfmt_misc|bpf|cgroup2?|configfs|debugfs|devpts|devtmpfs|fusectl|hugetlbfs|iso9660|mqueue|nsfs|overlay|proc|procfs|pstore|rpc_pipefs|securityfs|selinuxfs|squashfs|erofs|sysfs|tracefs)$/;
const SKIPPED_MOUNTS =
  /^\/(dev|proc|run\/credentials\/.+|sys|var\/lib\/docker\/.+|var\/lib\/containers\/storage\/.+)($|\/)/;

/** The root of the container the agent runs in: overlay is skipped everywhere else. */
const isContainerRoot = (path: string, type: string) => path === '/' && type === 'overlay';
const skipped = (path: string, type: string) =>
  !isContainerRoot(path, type) && (SKIPPED_TYPES.test(type) || SKIPPED_MOUNTS.test(path));

export interface Mount {
  device: string;
  path: string;
  type: string;
  readonly: boolean;
}

/** `\040` and friends: /proc/mounts writes a space in a path as an octal escape. */
const unescape = (path: string) =>
  path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The mounts worth watching, each mount point once (the last mount over a path is the visible one). */
export function watchedMounts(text: string): Mount[] {
  const byPath = new Map<string, Mount>();
  for (const [device, rawPath, type, options] of fieldsOf(text)) {
    if (!device || !rawPath || !type || !options) continue;
    const path = unescape(rawPath);
    if (skipped(path, type)) continue;
    byPath.set(path, { device, path, type, readonly: options.split(',').includes('ro') });
  }
  return [...byPath.values()];
}

/** The mount points /etc/fstab lists, each with whether fstab mounts it read-only. */
export function fstabReadonly(text: string): Map<string, boolean> {
  const readonly = new Map<string, boolean>();
  for (const [spec, rawPath, , options] of fieldsOf(text)) {
    if (!spec || spec.startsWith('#') || !rawPath || !options) continue;
    readonly.set(unescape(rawPath), options.split(',').includes('ro'));
  }
  return readonly;
}

export function disksCollector(host: Host) {
  // mount points this agent has seen writable: read-only after that means they turned read-only
  const seenWritable = new Set<string>();
  const turnedReadonly = (mount: Mount, fstab: ReadonlyMap<string, boolean>) => {
    if (!mount.readonly) seenWritable.add(mount.path);
    const byDesign = fstab.get(mount.path);
    return mount.readonly && (byDesign === undefined ? seenWritable.has(mount.path) : !byDesign);
  };
  return async (): Promise<Sample[]> => {
    const samples: Sample[] = [];
    const fstab = fstabReadonly((await host.read('/etc/fstab')) ?? '');
    for (const mount of watchedMounts((await host.read('/proc/self/mounts')) ?? '')) {
      // statfs of a bind-mounted file answers for the file system it lives on: the same disk again
      if (!(await host.isDirectory(mount.path))) continue;
      const stats = await host.statfs(mount.path);
      if (!stats || stats.blocks === 0) continue; // nothing to fill (e.g. an empty tmpfs size)
      // as df counts it: used / (used + available to users), so the reserved blocks show as full
      const used = stats.blocks - stats.bfree;
      const usedPct = percent(used, used + stats.bavail);
      if (usedPct !== null) samples.push(sample('disk.used_pct', usedPct, mount.path));
      const inodes = percent(stats.files - stats.ffree, stats.files);
      if (inodes !== null) samples.push(sample('disk.inodes_used_pct', inodes, mount.path));
      samples.push(sample('disk.readonly', turnedReadonly(mount, fstab) ? 1 : 0, mount.path));
    }
    return samples;
  };
}
