import type { ChartsData, SeriesKey } from '@console/shared/systems/series';

/** The newest value of each series and when it came: the last point of the window (live reports included). */
export interface Latest {
  value: number;
  at: number;
}

/** `name|instance` → its newest point; series without a point in the window are left out. */
export function latestValues(data: ChartsData): Map<string, Latest> {
  const latest = new Map<string, Latest>();
  for (const series of data.series) {
    const last = series.points.at(-1);
    if (last) latest.set(seriesId(series), { value: last[1], at: last[0] });
  }
  return latest;
}

export const seriesId = (key: SeriesKey): string => `${key.name}|${key.instance}`;

export const isContainerSeries = (key: SeriesKey): boolean => key.name.startsWith('container.');
export const isTopProcessSeries = (key: SeriesKey): boolean => key.name.startsWith('process.');
export const isWatchedProcessSeries = (key: SeriesKey): boolean => key.name.startsWith('processes.');
/** A script check's state or figures (`script.state{check}`, `script.perf{check:label}`). */
export const isScriptCheckSeries = (key: SeriesKey): boolean => key.name.startsWith('script.');
/** The host's own series: what the first tab draws when the system has containers, processes or checks. */
export const isHostSeries = (key: SeriesKey): boolean =>
  !isContainerSeries(key) && !isTopProcessSeries(key) && !isWatchedProcessSeries(key) && !isScriptCheckSeries(key);
/** The series of one script check: its state and its figures. */
export const ofScriptCheck =
  (check: string) =>
  (key: SeriesKey): boolean =>
    (key.name === 'script.state' && key.instance === check) ||
    (key.name === 'script.perf' && key.instance.startsWith(`${check}:`));

export type ContainerState = 'running' | 'unhealthy' | 'exited';

/** One line of the containers table, from the container's newest values. */
export interface ContainerRow {
  name: string;
  state: ContainerState;
  /** null: the container has no healthcheck. */
  healthy: boolean | null;
  restarts: number | null;
  cpuPct: number | null;
  memPct: number | null;
}

/** The series the containers table reads: what a row shows. */
export const CONTAINER_TABLE_METRICS = [
  'container.running',
  'container.healthy',
  'container.restarts',
  'container.cpu_pct',
  'container.mem_pct',
] as const;

/**
 * The containers at their newest values, by name. A container without a `container.running` value in
 * the window is left out: the agent stops sending a removed container's series.
 */
export function containerRows(latest: ReadonlyMap<string, Latest>, names: readonly string[]): ContainerRow[] {
  const value = (name: string, instance: string): number | null => latest.get(`${name}|${instance}`)?.value ?? null;
  return [...new Set(names)]
    .filter((name) => value('container.running', name) !== null)
    .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
    .map((name) => {
      const health = value('container.healthy', name);
      const healthy = health === null ? null : health >= 0.5;
      const running = (value('container.running', name) ?? 0) >= 0.5;
      return {
        name,
        state: !running ? 'exited' : healthy === false ? 'unhealthy' : 'running',
        healthy,
        restarts: value('container.restarts', name),
        cpuPct: value('container.cpu_pct', name),
        memPct: value('container.mem_pct', name),
      };
    });
}

/** One line of a top list: a process name and user with its CPU and memory. */
export interface ProcessRow {
  instance: string;
  cpuPct: number | null;
  rssBytes: number | null;
}

/**
 * The processes of the last report, the busiest first by `by`, at most `limit`: the agent sends both
 * figures for the union of its two top lists, so each list is that union ranked again.
 */
export function topProcesses(
  latest: ReadonlyMap<string, Latest>,
  instances: readonly string[],
  by: 'cpuPct' | 'rssBytes',
  limit: number,
): ProcessRow[] {
  const at = (name: string, instance: string) => latest.get(`${name}|${instance}`);
  const last = Math.max(
    ...instances.flatMap((i) => [
      at('process.cpu_pct', i)?.at ?? -Infinity,
      at('process.rss_bytes', i)?.at ?? -Infinity,
    ]),
  );
  return [...new Set(instances)]
    .map((instance) => {
      const cpu = at('process.cpu_pct', instance);
      const rss = at('process.rss_bytes', instance);
      return {
        instance,
        cpuPct: cpu?.at === last ? cpu.value : null,
        rssBytes: rss?.at === last ? rss.value : null,
      };
    })
    .filter((row) => row[by] !== null)
    .sort((a, b) => (b[by] ?? 0) - (a[by] ?? 0))
    .slice(0, limit);
}

/** "1.2 GiB": a process's memory at a glance. */
export function bytesText(bytes: number | null): string {
  if (bytes === null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
