/**
 * A host recorded as JSON (agent/test/fixtures/*.json: the files the collectors read, statfs
 * results, and a second look `later` for the rates), served through the collectors' Host interface.
 */
import { readFileSync } from 'node:fs';
import { createCollector, type CollectorOptions } from '../src/collect.js';
import type { FsStats, Host, StatFiles } from '../src/host.js';
import type { Sample } from '../src/sample.js';

export interface RecordedHost {
  files: Record<string, string>;
  statfs: Record<string, FsStats>;
  /** Mount points that are not directories (files a container engine bind-mounts). */
  notDirectories?: string[];
  /** Files as they read a while later (counters moved on). */
  later?: Record<string, string>;
}

export function loadFixture(name: string): RecordedHost {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as RecordedHost;
}

/** A recorded host's /proc/<pid>/stat files: read from its files each time, nothing kept open, nothing to sweep. */
export const plainStatFiles = (read: (path: string) => string | null): StatFiles => ({ read, sweep: () => {} });

/** The host as recorded; `advance()` switches to the `later` look. */
export function fixtureHost(recorded: RecordedHost): Host & { advance(): void } {
  let files = { ...recorded.files };
  return {
    read: async (path) => files[path] ?? null,
    list: async (path) => {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = Object.keys(files)
        .filter((file) => file.startsWith(prefix))
        .map((file) => file.slice(prefix.length).split('/')[0] as string);
      return [...new Set(names)];
    },
    statfs: async (path) => recorded.statfs[path] ?? null,
    isDirectory: async (path) => !(recorded.notDirectories ?? []).includes(path),
    procStats: plainStatFiles((path) => files[path] ?? null),
    advance() {
      files = { ...files, ...recorded.later };
    },
  };
}

/** One first report of a recorded host: two looks, the recorded counters and the clock moved on between them. */
export async function collectTwoLooks(name: string, options: CollectorOptions = {}): Promise<Sample[]> {
  const host = fixtureHost(loadFixture(name));
  let now = 0;
  // the recorded host has no container engine: none of the machine the test runs on either
  const settings = options.settings ?? (() => ({}));
  const collector = createCollector(host, {
    primeMs: 0,
    clock: () => now,
    ...options,
    settings: () => ({ 'containers.socket': 'off', ...settings() }),
  });
  const originalRead = host.read;
  let looks = 0;
  host.read = async (path) => {
    if (path === '/proc/stat' && looks++ === 2) {
      host.advance();
      now = 1000;
    }
    return originalRead(path);
  };
  return (await collector.report()).metrics;
}
