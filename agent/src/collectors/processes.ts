/**
 * Processes, from /proc only:
 * - the top `processes.top` (default 5) by CPU and by memory: process.cpu_pct and process.rss_bytes
 *   per "name (user)". Processes of one name and user are summed (nginx's workers are one line),
 *   and the instance carries no pid: a pid in it would make a new series every report, and the
 *   server keeps every distinct set of series a report ever had;
 * - watched patterns, agent setting `processes` ("nginx, postgres*, /usr/bin/java *app.jar"):
 *   processes.count, processes.cpu_pct and processes.rss_bytes per pattern, so "nginx: 0 processes"
 *   can raise an alert. A pattern (glob: * and ?) matches the process name (or its program's name
 *   where the kernel cut the name at 15 characters), or, when it holds a "/" or a space, the command
 *   line, which is read on the host only.
 * No argument leaves the host unless `processes.args` is "on": then a top line is named by its
 * command line (arguments can hold secrets, so it is off unless asked for).
 * CPU is a share of one CPU, as top shows it, over the time since the last look.
 */
import { type Host } from '../host.js';
import { sample, type Sample } from '../sample.js';
import { readProcStats, type ProcStats } from './proc-stats.js';

/** Clock ticks a second (USER_HZ): 100 on every Linux architecture the agent is built for. */
const TICKS = 100;
const MAX_TOP = 20;
/** The longest process name the kernel keeps (TASK_COMM_LEN less its NUL). */
const COMM_LENGTH = 15;
/** How long the account names of /etc/passwd are kept: a new account's processes show its name after this. */
const PASSWD_MS = 10 * 60_000;

interface Proc {
  pid: string;
  /** Its start time in clock ticks after boot: a pid with another start time is another process. */
  start: string;
  name: string;
  ticks: number;
  rssPages: number;
}

export function processSettings(settings: Record<string, unknown>) {
  const top = Number(settings['processes.top'] ?? 5);
  const patterns =
    typeof settings['processes'] === 'string'
      ? settings['processes']
          .split(',')
          .map((p) => p.trim())
          .filter((p) => p && p.length <= 128)
      : [];
  return {
    top: Number.isInteger(top) && top >= 0 && top <= MAX_TOP ? top : 5,
    patterns,
    args: settings['processes.args'] === 'on' || settings['processes.args'] === 'true',
  };
}

/** pid, comm and the fields after it: state (3) … utime (14), stime (15) … starttime (22), rss (24). */
export function parseStat(pid: string, stat: string): Proc | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const name = stat.slice(stat.indexOf('(') + 1, close);
  const rest = stat.slice(close + 2).split(' ');
  const [utime, stime, rss] = [rest[11], rest[12], rest[21]].map(Number);
  if (![utime, stime, rss].every((n) => Number.isFinite(n))) return null;
  return { pid, start: rest[19] ?? '', name, ticks: (utime as number) + (stime as number), rssPages: rss as number };
}

export function globMatcher(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** The `top` items with the largest `size`, largest first; each size computed once. */
function largest<T>(items: T[], size: (item: T) => number, top: number): T[] {
  return items
    .map((item) => ({ item, size: size(item) }))
    .sort((a, b) => b.size - a.size)
    .slice(0, top)
    .map(({ item }) => item);
}

const users = (passwd: string) =>
  new Map(
    passwd
      .split('\n')
      .map((line) => line.split(':'))
      .filter((f) => f.length > 2)
      .map((f) => [f[2] as string, f[0] as string]),
  );

/** `stats`: the collection's shared stat lines (collect.ts: the zombie count reads the same), or its own read. */
export function processesCollector(
  host: Host,
  settings: () => Record<string, unknown>,
  clock: () => number,
  stats: ProcStats = () => readProcStats(host),
) {
  let before: { at: number; ticks: Map<string, number> } | null = null;
  let pageSize: number | null = null;
  let accounts: { at: number; names: Map<string, string> } | null = null;

  /** Account names by uid: /etc/passwd changes seldom, so it is read again after PASSWD_MS only. */
  async function passwd(): Promise<Map<string, string>> {
    const at = clock();
    if (!accounts || at - accounts.at >= PASSWD_MS)
      accounts = { at, names: users((await host.read('/etc/passwd')) ?? '') };
    return accounts.names;
  }

  /** Bytes a page: the agent's own RSS in kB (status) over its pages (stat). */
  async function pageBytes(): Promise<number> {
    if (pageSize) return pageSize;
    const kb = Number(/VmRSS:\s+(\d+)/.exec((await host.read('/proc/self/status')) ?? '')?.[1]);
    const pages = parseStat('self', (await host.read('/proc/self/stat')) ?? '')?.rssPages ?? 0;
    const guess = kb > 0 && pages > 0 ? (kb * 1024) / pages : 4096;
    pageSize = [4096, 16384, 65536].reduce((a, b) => (Math.abs(b - guess) < Math.abs(a - guess) ? b : a));
    return pageSize;
  }

  const cmdline = async (pid: string) =>
    ((await host.read(`/proc/${pid}/cmdline`)) ?? '').replace(/\0+$/, '').replace(/\0/g, ' ');
  /**
   * Each process's uid from its status file, kept while the same process lives (pid and start time)
   * and read again after PASSWD_MS (a daemon may drop its privileges after it started): the top
   * lists' candidates are mostly the same processes every look, hundreds on a host with containers.
   */
  const owners = new Map<string, { start: string; uid: string; at: number }>();
  async function uid(p: Proc, at: number): Promise<string> {
    const known = owners.get(p.pid);
    if (known && known.start === p.start && at - known.at < PASSWD_MS) return known.uid;
    const read = /^Uid:\s+(\d+)/m.exec((await host.read(`/proc/${p.pid}/status`)) ?? '')?.[1] ?? '?';
    owners.set(p.pid, { start: p.start, uid: read, at });
    return read;
  }

  /** The kernel cuts a process name to 15 characters: such a name is also tried as its program's whole name. */
  async function matches(p: Proc, matcher: RegExp, onCommandLine: boolean): Promise<boolean> {
    if (onCommandLine) return matcher.test(await cmdline(p.pid));
    if (matcher.test(p.name)) return true;
    if (p.name.length < COMM_LENGTH) return false;
    const program = (await cmdline(p.pid)).split(' ')[0] ?? '';
    return matcher.test(program.slice(program.lastIndexOf('/') + 1));
  }

  return async (): Promise<Sample[]> => {
    const { top, patterns, args } = processSettings(settings());
    const procs: Proc[] = [];
    for (const { pid, text } of await stats()) {
      const proc = parseStat(pid, text);
      if (proc) procs.push(proc);
    }
    const at = clock();
    const ticks = new Map(procs.map((p) => [p.pid, p.ticks]));
    for (const pid of owners.keys()) if (!ticks.has(pid)) owners.delete(pid); // ended: forgotten
    const last = before;
    before = { at, ticks };
    const page = await pageBytes();
    const seconds = last ? (at - last.at) / 1000 : 0;
    // share of one CPU since the last look; a process new since then counts from its start
    const cpuOf = (p: Proc) => (seconds > 0 ? (100 * (p.ticks - (last?.ticks.get(p.pid) ?? 0))) / TICKS / seconds : 0);
    const samples: Sample[] = [];

    for (const pattern of patterns) {
      const matcher = globMatcher(pattern);
      const onCommandLine = /[/ ]/.test(pattern);
      const matching: Proc[] = [];
      for (const p of procs) if (await matches(p, matcher, onCommandLine)) matching.push(p);
      samples.push(sample('processes.count', matching.length, pattern));
      if (last)
        samples.push(
          sample(
            'processes.cpu_pct',
            matching.reduce((s, p) => s + cpuOf(p), 0),
            pattern,
          ),
        );
      samples.push(
        sample(
          'processes.rss_bytes',
          matching.reduce((s, p) => s + p.rssPages * page, 0),
          pattern,
        ),
      );
    }
    if (top === 0) return samples;

    // group by name once, take the candidates of both lists, then split them by user (status read only for those)
    const byName = new Map<string, Proc[]>();
    for (const p of procs) {
      const group = byName.get(p.name);
      if (group) group.push(p);
      else byName.set(p.name, [p]);
    }
    const userNames = await passwd();
    const rank = async (key: (p: Proc) => number) => {
      const sum = (list: Proc[]) => list.reduce((s, p) => s + key(p), 0);
      const candidates = largest([...byName.values()], sum, top);
      const groups = new Map<string, Proc[]>();
      for (const p of candidates.flat()) {
        const label = args ? (await cmdline(p.pid)) || p.name : p.name;
        const user = userNames.get(await uid(p, at)) ?? 'unknown';
        const instance = `${label.slice(0, 96)} (${user.slice(0, 28)})`.replace(/[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]/gu, '?');
        const group = groups.get(instance);
        if (group) group.push(p);
        else groups.set(instance, [p]);
      }
      return largest([...groups.entries()], ([, list]) => sum(list), top).filter(([, list]) => sum(list) > 0);
    };
    const shown = new Map<string, Proc[]>([...(last ? await rank(cpuOf) : []), ...(await rank((p) => p.rssPages))]);
    for (const [instance, list] of shown) {
      if (last)
        samples.push(
          sample(
            'process.cpu_pct',
            list.reduce((s, p) => s + cpuOf(p), 0),
            instance,
          ),
        );
      samples.push(
        sample(
          'process.rss_bytes',
          list.reduce((s, p) => s + p.rssPages * page, 0),
          instance,
        ),
      );
    }
    return samples;
  };
}
