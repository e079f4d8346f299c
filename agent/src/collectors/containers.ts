/**
 * Containers of a Docker engine (or Podman's Docker-compatible API) over its unix socket: agent
 * setting `containers.socket` (default /var/run/docker.sock; "off" turns it off). Per container,
 * its name as the instance: container.running, .healthy (with a healthcheck), .restarts (the
 * engine's count), .restarts_recent (within `containers.restart_window` minutes, default 10),
 * .uptime_s, .exited_unexpectedly, and for running ones CPU (share of its limit), memory used, its
 * limit and the share, network and block I/O rates.
 *
 * One collection: the engine's events since the last one (one request: who died, who was stopped or
 * killed by a request, who was removed), the list (`/containers/json?all=1`, one request), an
 * inspection only of containers the events or the list say changed (ENGINE_REQUESTS_AT_ONCE at a time). Each
 * running container's CPU, memory, network and block I/O counters come from its cgroup files, or from
 * the engine for a container whose files cannot be read (container-stats.ts), all within BUDGET_MS.
 * An engine that does not answer leaves every container series out, said once in the log.
 * Beside the series, `described()` gives the report's `containers`: each listed container's image.
 */
import type { ContainerText } from '../../../contracts/agent-report.js';
import { MAX_CONTAINERS_PER_REPORT, MAX_IMAGE_LENGTH, PRINTABLE } from '../../../contracts/agent-report-limits.js';
import { sample, type Sample } from '../sample.js';
import { printable } from './nagios-output.js';
import { keptFiles, readFile, type Read } from '../kept-files.js';
import { boundedEach, ENGINE_REQUESTS_AT_ONCE, EngineError, engineGet, engineJson } from './engine-api.js';
import { healthOf, nameOf, type Inspection, type ListEntry, type Stats } from './container-figures.js';
import { containerStats, type StatsState } from './container-stats.js';

export const DEFAULT_SOCKET = '/var/run/docker.sock';
const REQUEST_MS = 3000;
const BUDGET_MS = 8000;
/** 2,000 metrics a report at most: 120 containers × 12 series leave room for the host's own. */
export const MAX_CONTAINERS = MAX_CONTAINERS_PER_REPORT;
const MINUTE = 60_000;
/** Counter files kept open at most: 120 containers take about 720. */
const KEPT_FILES = 768;

interface Tracked extends StatsState {
  inspectedState: string;
  /** An event since the last inspection: inspect again. */
  changed: boolean;
  /** A stop or kill was asked for since it last started (`docker stop`, `docker kill`, compose down). */
  stopRequested: boolean;
  /** It died since it last started, and nobody asked it to. */
  diedOnItsOwn: boolean;
  seenRunning: boolean;
  restartHistory: { at: number; count: number }[];
}

interface EngineEvent {
  Type?: string;
  Action?: string;
  status?: string;
  id?: string;
  Actor?: { ID?: string };
}

export interface ContainerOptions {
  settings: () => Record<string, unknown>;
  log: (line: string) => void;
  now?: () => number;
  hostCpus?: () => Promise<number>;
  /** How the cgroup and /proc files are read (tests: none readable, so every figure is asked of the engine). */
  read?: Read;
}

export function containerSettings(settings: Record<string, unknown>) {
  const socket = typeof settings['containers.socket'] === 'string' ? settings['containers.socket'].trim() : '';
  const window = Number(settings['containers.restart_window']);
  return {
    socket: socket || DEFAULT_SOCKET,
    off: socket === 'off',
    windowMs: (Number.isFinite(window) && window >= 1 && window <= 1440 ? window : 10) * MINUTE,
  };
}

function why(error: unknown, socket: string): string {
  const code = error instanceof EngineError ? error.code : 'ERROR';
  if (code === 'ENOENT') return `no container engine socket at ${socket}`;
  if (code === 'EACCES') return `may not open ${socket} (install with --docker, or point containers.socket at a proxy)`;
  if (code === 'ECONNREFUSED') return `the container engine at ${socket} refuses connections`;
  return `the container engine at ${socket} did not answer (${error instanceof Error ? error.message : code})`;
}

/**
 * What the series need of an inspection, kept until the container changes: the whole answer (its
 * configuration, mounts, networks…) is tens of kilobytes of objects per container held for nothing.
 */
function slim({ RestartCount, State, HostConfig }: Inspection): Inspection {
  return {
    RestartCount,
    State: State && {
      Status: State.Status,
      ExitCode: State.ExitCode,
      OOMKilled: State.OOMKilled,
      StartedAt: State.StartedAt,
      Health: State.Health && { Status: State.Health.Status },
      Pid: State.Pid,
    },
    HostConfig: HostConfig && {
      NanoCpus: HostConfig.NanoCpus,
      CpuQuota: HostConfig.CpuQuota,
      CpuPeriod: HostConfig.CpuPeriod,
      NetworkMode: HostConfig.NetworkMode,
    },
  };
}

const newTracked = (): Tracked => ({
  inspection: null,
  inspectedState: '',
  changed: true,
  stopRequested: false,
  diedOnItsOwn: false,
  seenRunning: false,
  restartHistory: [],
  look: null,
  files: null,
});

export type ContainersCollector = (() => Promise<Sample[]>) & {
  /** The containers of the last collection with their images; undefined when it saw no engine. */
  described(): ContainerText[] | undefined;
};

/** The engine's image name as it is (the usual case, no copy), else cut and cleaned to what a report may carry. */
export function imageOf(entry: ListEntry): string {
  const image = entry.Image ?? '';
  return image.length <= MAX_IMAGE_LENGTH && PRINTABLE.test(image) ? image : printable(image, MAX_IMAGE_LENGTH);
}

const describe = (entry: ListEntry): ContainerText => ({ name: nameOf(entry), image: imageOf(entry) });

export function containersCollector(options: ContainerOptions): ContainersCollector {
  const now = options.now ?? Date.now;
  // the real files kept open between collections (cgroup-files.ts), closed when no longer read
  const kept = options.read ? null : keptFiles(KEPT_FILES);
  const read = options.read ?? kept?.read ?? readFile;
  const tracked = new Map<string, Tracked>();
  let described: ContainerText[] | undefined;
  let eventsSince: number | null = null;
  let saidWhy = '';
  let saidCapped = false;
  let socketInUse = '';
  const statsOf = containerStats({ read, log: options.log, now });

  /** Applies the engine's events; false when the engine does not give them (a proxy may refuse). */
  async function readEvents(socket: string, until: number, signal: AbortSignal): Promise<boolean> {
    const since = eventsSince;
    eventsSince = until;
    if (since === null) return false;
    const filters = encodeURIComponent(JSON.stringify({ type: ['container'] }));
    const path = `/events?since=${(since / 1000).toFixed(3)}&until=${(until / 1000).toFixed(3)}&filters=${filters}`;
    const text = await engineGet({ socketPath: socket, path, timeoutMs: REQUEST_MS, signal }).catch(() => null);
    if (text === null) return false;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let event: EngineEvent;
      try {
        event = JSON.parse(line) as EngineEvent;
      } catch {
        continue;
      }
      const id = event.Actor?.ID ?? event.id;
      const action = (event.Action ?? event.status ?? '').split(':')[0] ?? '';
      // one started since the last list is followed from its start (it may have died already)
      if (id && action === 'start' && !tracked.has(id)) tracked.set(id, newTracked());
      const container = id ? tracked.get(id) : undefined;
      if (!id || !container) continue;
      // a healthcheck's own runs (exec_create, exec_start, exec_die) change nothing an inspection shows
      if (!action.startsWith('exec_')) container.changed = true;
      if (action === 'kill' || action === 'stop') container.stopRequested = true;
      else if (action === 'start')
        Object.assign(container, { stopRequested: false, diedOnItsOwn: false, seenRunning: true });
      else if (action === 'die' && !container.stopRequested) container.diedOnItsOwn = true;
      else if (action === 'destroy') tracked.delete(id);
    }
    return true;
  }

  function restartsRecent(container: Tracked, count: number, at: number, windowMs: number): number {
    const history = container.restartHistory;
    const newest = history[history.length - 1];
    if (newest && count < newest.count) history.length = 0; // a started container counts from 0 again
    if (!newest || newest.count !== count || history.length === 0) history.push({ at, count });
    // the count at the window's start: the newest entry at or before it, else the oldest seen
    while (history.length > 1 && (history[1] as { at: number }).at <= at - windowMs) history.shift();
    return count - (history[0] as { count: number }).count;
  }

  function seriesOf(entry: ListEntry, container: Tracked, stats: Samples, withEvents: boolean, settings: Settings) {
    const name = nameOf(entry);
    const at = now();
    const running = entry.State === 'running';
    const samples: Sample[] = [sample('container.running', running ? 1 : 0, name)];
    if (running) container.seenRunning = true;
    const state = container.inspection?.State;
    const health = running ? healthOf(entry, container.inspection) : null;
    if (health) samples.push(sample('container.healthy', health === 'healthy' ? 1 : 0, name));
    const count = container.inspection?.RestartCount;
    if (typeof count === 'number') {
      samples.push(sample('container.restarts', count, name));
      samples.push(sample('container.restarts_recent', restartsRecent(container, count, at, settings.windowMs), name));
    }
    const started = Date.parse(state?.StartedAt ?? '');
    if (running && started > 0)
      samples.push(sample('container.uptime_s', Math.max(0, Math.floor((at - started) / 1000)), name));
    // without the engine's events, a non-zero exit (or the OOM killer) of one seen running stands for "on its own"
    const ended = entry.State === 'exited' || entry.State === 'dead';
    const onItsOwn = withEvents
      ? container.diedOnItsOwn
      : container.seenRunning && (state?.OOMKilled === true || (state?.ExitCode ?? 0) !== 0);
    samples.push(sample('container.exited_unexpectedly', ended && onItsOwn ? 1 : 0, name));
    samples.push(...(stats.get(entry.Id) ?? []));
    return samples;
  }

  type Settings = ReturnType<typeof containerSettings>;
  type Samples = Map<string, Sample[]>;

  const collect = async (): Promise<Sample[]> => {
    described = undefined;
    const settings = containerSettings(options.settings());
    if (settings.off) {
      kept?.closeAll();
      return [];
    }
    const socket = settings.socket;
    if (socket !== socketInUse) {
      // another socket (the settings changed): what was said of the last one does not carry over
      tracked.clear();
      eventsSince = null;
      saidWhy = '';
      socketInUse = socket;
    }
    const signal = AbortSignal.timeout(BUDGET_MS);
    const until = now();
    let list: ListEntry[];
    let withEvents: boolean;
    try {
      withEvents = await readEvents(socket, until, signal);
      list = await engineJson<ListEntry[]>({
        socketPath: socket,
        path: '/containers/json?all=1',
        timeoutMs: REQUEST_MS,
        signal,
      });
    } catch (error) {
      const reason = why(error, socket);
      if (reason !== saidWhy) options.log(`containers: ${reason}; container series left out`);
      saidWhy = reason;
      eventsSince = null;
      kept?.sweep();
      return [];
    }
    if (saidWhy) options.log(`containers: the engine at ${socket} answers again`);
    saidWhy = '';
    if (list.length > MAX_CONTAINERS && !saidCapped) {
      options.log(`containers: ${list.length} containers, series of the first ${MAX_CONTAINERS} by name only`);
      saidCapped = true;
    }
    // by code unit, not localeCompare: engine names are ASCII, and ICU's collation costs the agent ~3 MB of RSS
    const shown = list
      .map((entry) => ({ entry, name: nameOf(entry) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, MAX_CONTAINERS)
      .map(({ entry }) => entry);
    described = shown.map(describe);
    const present = new Set(list.map((entry) => entry.Id));
    for (const id of tracked.keys()) if (!present.has(id)) tracked.delete(id); // removed: forgotten

    const get = async <T>(path: string) => engineJson<T>({ socketPath: socket, path, timeoutMs: REQUEST_MS, signal });
    const entries = shown.map((entry) => {
      let container = tracked.get(entry.Id);
      if (!container) {
        container = newTracked();
        tracked.set(entry.Id, container);
      }
      return { entry, container };
    });
    const stale = entries.filter(
      ({ entry, container }) => !withEvents || container.changed || container.inspectedState !== entry.State,
    );
    await boundedEach(stale, ENGINE_REQUESTS_AT_ONCE, signal, async ({ entry, container }) => {
      container.inspection = slim(await get<Inspection>(`/containers/${entry.Id}/json`));
      container.inspectedState = entry.State ?? '';
      container.changed = false;
    });
    const cpus = (await options.hostCpus?.()) || 1;
    const running = entries.filter(({ entry }) => entry.State === 'running');
    const stats = await statsOf(
      running,
      cpus,
      (id) => get<Stats>(`/containers/${id}/stats?stream=false&one-shot=true`),
      signal,
    );
    kept?.sweep();
    return entries.flatMap(({ entry, container }) => seriesOf(entry, container, stats, withEvents, settings));
  };
  return Object.assign(collect, { described: () => described });
}
