/** One report from every collector; a collector that fails leaves its metrics out, never the report. */
import type { AgentReport } from '../../contracts/agent-report.js';
import { statSync } from 'node:fs';
import { atMostEvery } from './collectors/cadence.js';
import { clockCollector } from './collectors/clock.js';
import { configuredCollector } from './collectors/configured.js';
import { containersCollector } from './collectors/containers.js';
import { cpuCollector, cpuCount } from './collectors/cpu.js';
import { diskIoCollector } from './collectors/diskio.js';
import { disksCollector } from './collectors/disks.js';
import { kernelCollector } from './collectors/kernel.js';
import { loadCollector } from './collectors/load.js';
import { memoryCollector } from './collectors/memory.js';
import { networkCollector } from './collectors/network.js';
import { sharedProcStats } from './collectors/proc-stats.js';
import { processesCollector } from './collectors/processes.js';
import { DEFAULT_CHECKS_DIR, scriptChecks } from './collectors/scripts.js';
import { DEFAULT_TEXTFILE_DIR, textfileCollector } from './collectors/textfile.js';
import { smartCollector } from './collectors/smart.js';
import { updatesCollector } from './collectors/updates.js';
import type { Host } from './host.js';
import { runTool as realRunTool, type RunTool } from './run-tool.js';
import type { AgentEvent, Sample } from './sample.js';

const MINUTE = 60_000;

/** What the package manager's answer depends on: a changed package database or fresh lists ask again. */
function packageState(): string {
  return ['/var/lib/dpkg/status', '/var/lib/apt/lists', '/var/lib/rpm', '/var/cache/dnf']
    .map((path) => {
      try {
        return statSync(path).mtimeMs;
      } catch {
        return 0;
      }
    })
    .join();
}

export interface CollectorOptions {
  /** How long the first report waits between its two looks (rates need two). */
  primeMs?: number;
  clock?: () => number;
  /** The agent settings of the server's last answer (what to watch: services, certificates, backups). */
  settings?: () => Record<string, unknown>;
  runTool?: RunTool;
  /**
   * Wait for every costly host tool's first answer (`collect`, `once`: one report, then exit). The
   * service waits 2 s at most, so a slow apt-get's count comes with a later report.
   */
  waitForHostTools?: boolean;
  /** The agent's log: what a collector cannot see, said once (a container engine that does not answer). */
  log?: (line: string) => void;
  /** Script checks and drop-in metrics (config.yaml's `checks_dir`, `textfile_dir`). */
  checksDir?: string;
  textfileDir?: string;
}

const SERVICE_FIRST_WAIT_MS = 2000;

export function createCollector(host: Host, options: CollectorOptions = {}) {
  const clock = options.clock ?? (() => performance.now());
  const run = options.runTool ?? realRunTool;
  const firstWaitMs = options.waitForHostTools ? Infinity : SERVICE_FIRST_WAIT_MS;
  const cores = async () => cpuCount((await host.read('/proc/stat')) ?? '');
  const settings = options.settings ?? (() => ({}));
  const log = options.log ?? (() => undefined);
  const scripts = scriptChecks({ dir: options.checksDir ?? DEFAULT_CHECKS_DIR, settings, log, firstWaitMs });
  // every /proc/<pid>/stat once a look: the zombie count and the process lists share them
  const procStats = sharedProcStats(host);
  const containers = containersCollector({ settings, log, hostCpus: cores });
  const parts: (() => Promise<Sample[]>)[] = [
    cpuCollector(host),
    memoryCollector(host),
    loadCollector(host, cores),
    disksCollector(host),
    diskIoCollector(host, clock),
    networkCollector(host, clock),
    kernelCollector(host, procStats.stats),
    configuredCollector(host, settings, run),
    processesCollector(host, settings, clock, procStats.stats),
    containers,
    textfileCollector({ dir: options.textfileDir ?? DEFAULT_TEXTFILE_DIR, settings, log }),
    atMostEvery(MINUTE, clockCollector(run), { firstWaitMs }),
    atMostEvery(10 * MINUTE, smartCollector(run), { firstWaitMs }),
    atMostEvery(60 * MINUTE, updatesCollector(run), { firstWaitMs, changed: async () => packageState() }),
  ];
  const lookOnce = async () => {
    procStats.next();
    return (await Promise.all(parts.map((part) => part().catch(() => [])))).flat();
  };
  let primed = false;

  return {
    /** A report of now; `events` ride along (a reboot seen, a unit failed). */
    async report(events: AgentEvent[] = []): Promise<AgentReport> {
      if (!primed) {
        await lookOnce();
        await new Promise((resolve) => setTimeout(resolve, options.primeMs ?? 1000));
        primed = true;
      }
      const [metrics, checked] = await Promise.all([lookOnce(), scripts.collect()]);
      metrics.push(...checked.samples);
      const checks = checked.checks;
      const described = containers.described();
      return {
        ts: new Date().toISOString(),
        metrics,
        ...(events.length ? { events } : {}),
        ...(checks.length ? { scripts: checks } : {}),
        ...(described ? { containers: described } : {}),
      };
    },
  };
}

export type Collector = ReturnType<typeof createCollector>;
