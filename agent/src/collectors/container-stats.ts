/**
 * Running containers' counters, whichever way they come: from each container's cgroup files and
 * network namespace (cgroup-files.ts), found through the main pid of its inspection and kept until
 * that pid changes, or, for a container whose files cannot be read (another pid namespace, no
 * permission, the pid gone), a one-shot stats request to the engine — the Docker API has no stats for
 * all containers at once — at most ENGINE_REQUESTS_AT_ONCE at a time within the collection's budget; what is
 * not in by then waits for the next collection. Which way the figures come is said once in the log,
 * judged per collection: the files when any container's could be read, else the engine with the first
 * reason. The files are read first, so a slow engine never delays them.
 */
import type { Sample } from '../sample.js';
import type { Read } from '../kept-files.js';
import { memTotalOf, placeOf, statsFromFiles, type Place } from './cgroup-files.js';
import {
  figures,
  lookOf,
  nameOf,
  type Inspection,
  type ListEntry,
  type Look,
  type Stats,
} from './container-figures.js';
import { boundedEach, ENGINE_REQUESTS_AT_ONCE } from './engine-api.js';

/** What a container's figures need of the collector's memory of it. */
export interface StatsState {
  inspection: Inspection | null;
  /** The counters of its last look, for the next one's deltas. */
  look: Look | null;
  /** Its cgroup found from its main pid (or why not), kept until the pid changes. */
  files: { pid: number; place: Place | string } | null;
}

export interface Running {
  entry: ListEntry;
  container: StatsState;
}

export interface StatsOptions {
  read: Read;
  log: (line: string) => void;
  now: () => number;
}

/** Each running container's series of CPU, memory, network and block I/O, by container id. */
export function containerStats({ read, log, now }: StatsOptions) {
  const saidWays = new Set<string>();

  function sayWay(place: Place | string) {
    const way = typeof place === 'string' ? 'engine' : `v${place.version}`;
    if (saidWays.has(way)) return;
    saidWays.add(way);
    log(
      typeof place === 'string'
        ? `containers: figures asked of the engine, a stats request per running container (${place})`
        : `containers: figures read from the containers' cgroup v${place.version} files and /proc/<pid>/net/dev`,
    );
  }

  function record({ entry, container }: Running, answer: Stats, cpus: number, series: Map<string, Sample[]>) {
    const look = lookOf(answer, now(), cpus);
    if (!look) return;
    series.set(entry.Id, figures(nameOf(entry), answer, look, container.look, container.inspection));
    container.look = look;
  }

  /** Its figures from its cgroup files, read from that place; else why not, and the engine is asked. */
  function fromFiles(item: Running, cpus: number, memTotal: number, series: Map<string, Sample[]>): Place | string {
    const { entry, container } = item;
    const pid = container.inspection?.State?.Pid ?? 0;
    if (container.files?.pid !== pid) container.files = { pid, place: placeOf(pid, entry.Id, read) };
    const place = container.files.place;
    if (typeof place === 'string') return place;
    // a container on the host's network (or another container's) has no interfaces of its own to count
    const mode = container.inspection?.HostConfig?.NetworkMode ?? '';
    const ownNetwork = mode !== 'host' && !mode.startsWith('container:');
    const answer = statsFromFiles({ place, pid, ownNetwork, memTotal }, read);
    if (answer === null) {
      container.files = { pid, place: 'its cgroup files are gone' }; // until the next inspection's pid
      return container.files.place;
    }
    record(item, answer, cpus, series);
    return place;
  }

  /** `ask`: the engine's one-shot stats of a container id, for those whose files cannot be read. */
  return async (
    running: Running[],
    cpus: number,
    ask: (id: string) => Promise<Stats>,
    signal: AbortSignal,
  ): Promise<Map<string, Sample[]>> => {
    const series = new Map<string, Sample[]>();
    if (running.length === 0) return series;
    const memTotal = memTotalOf(read);
    const ways = running.map((item) => ({ item, way: fromFiles(item, cpus, memTotal, series) }));
    const asked = ways.filter(({ way }) => typeof way === 'string');
    // the way of this host: files when any container's could be read (another one's pid may just have ended)
    const way = ways.find((entry) => typeof entry.way !== 'string') ?? asked[0];
    if (way) sayWay(way.way);
    await boundedEach(asked, ENGINE_REQUESTS_AT_ONCE, signal, async ({ item }) => {
      record(item, await ask(item.entry.Id), cpus, series);
    });
    return series;
  };
}
