/**
 * The server's checks runner ("argus" location): every enabled check of that location on its
 * interval, each at its own phase of the interval (from its id) so that checks with the same
 * interval do not fire together; a failing check runs again at its retry interval. At most
 * `concurrency` checks run at once (each holds one socket or one `ping` process), and the runs
 * finished are recorded together once a tick (results.ts). Every enabled check, those run only by
 * agents too, whose last row is older than HEARTBEAT_MS has its state decided and stored again, so
 * the rules that read it see a fresh sample and an agent gone quiet stops counting.
 */
import { checkSettings, SERVER_LOCATION, type CheckSettings } from '../../../contracts/checks.js';
import { runProbe } from '../../../probes/probe.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { OutboundPolicy } from '../lib/outbound-policy.js';
import type { SecretBox } from '../lib/secret-box.js';
import { headersToSend, openSecretHeaders } from './headers.js';
import { policyNetwork } from './network.js';
import type { CheckRow, ChecksRepo } from './repo.js';
import { createCheckResults, type CheckResults, type LocationRun } from './results.js';

export const HEARTBEAT_MS = 60_000;
const TICK_MS = 1000;
const RELOAD_MS = 15_000;
export const DEFAULT_CONCURRENCY = 64;

interface Entry {
  check: CheckRow;
  settings: CheckSettings;
  /** The server is one of its locations: it runs the check (else only its heartbeat). */
  runsHere: boolean;
  nextMs: number;
  lastStoredMs: number;
  running: boolean;
}

/** The first slot after `nowMs` of a check's own phase within its interval. */
export function nextSlot(id: number, intervalMs: number, nowMs: number): number {
  const phase = Math.imul(id, 2_654_435_761) >>> 0;
  const offset = phase % intervalMs;
  return nowMs - ((((nowMs - offset) % intervalMs) + intervalMs) % intervalMs) + intervalMs;
}

export interface CheckRunnerDeps {
  repo: ChecksRepo;
  box: SecretBox;
  clock: Clock;
  log: Logger;
  policy: OutboundPolicy;
  /** Where runs are recorded (one for the whole app: agents' runs go there too). */
  results?: CheckResults;
  concurrency?: number;
}

export function createCheckRunner(deps: CheckRunnerDeps) {
  const { repo, box, clock, log } = deps;
  const network = policyNetwork(deps.policy);
  const results = deps.results ?? createCheckResults({ repo, clock });
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  const entries = new Map<number, Entry>();
  const done: LocationRun[] = [];
  const heartbeats: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let lastReload = 0;
  let flushing: Promise<void> = Promise.resolve();

  function entryOf(check: CheckRow, previous: Entry | undefined, nowMs: number): Entry | null {
    const parsed = checkSettings.safeParse(check.settings);
    if (!parsed.success) {
      log.warn({ check: check.id }, 'A stored check has settings that no longer parse: not run');
      return null;
    }
    const unchanged = previous && previous.check.intervalS === check.intervalS;
    return {
      check,
      settings: parsed.data,
      runsHere: check.locations.includes(SERVER_LOCATION),
      nextMs: unchanged ? previous.nextMs : nextSlot(check.id, check.intervalS * 1000, nowMs),
      lastStoredMs: previous?.lastStoredMs ?? (Date.parse((check.lastResult?.['at'] as string | undefined) ?? '') || 0),
      running: previous?.running ?? false,
    };
  }

  /** Reads the runnable checks again (new, changed, removed or paused ones). */
  async function reload(): Promise<void> {
    const nowMs = clock.now().getTime();
    lastReload = nowMs;
    const rows = await repo.runnable();
    const ids = new Set(rows.map((r) => r.id));
    for (const id of entries.keys()) if (!ids.has(id)) entries.delete(id);
    for (const row of rows) {
      const entry = entryOf(row, entries.get(row.id), nowMs);
      if (entry) entries.set(row.id, entry);
      else entries.delete(row.id);
    }
  }

  async function run(entry: Entry): Promise<void> {
    const { check } = entry;
    entry.running = true;
    try {
      const result = await runProbe(
        {
          settings: entry.settings,
          headers: headersToSend(entry.settings, openSecretHeaders(box, check.id, check.sealedHeaders)),
          timeoutMs: check.timeoutS * 1000,
          maxResponseMs: check.maxResponseMs,
        },
        network,
        () => clock.now(),
      );
      entry.lastStoredMs = result.at.getTime();
      done.push({ checkId: check.id, location: SERVER_LOCATION, result });
      const nowMs = clock.now().getTime();
      // a failing check runs again at its retry interval, until it answers
      entry.nextMs = result.up
        ? nextSlot(check.id, check.intervalS * 1000, nowMs)
        : nowMs + Math.min(check.retryIntervalS, check.intervalS) * 1000;
    } catch (error) {
      log.error({ err: error, check: check.id }, 'A check run failed');
      entry.nextMs = clock.now().getTime() + check.intervalS * 1000;
    } finally {
      entry.running = false;
    }
  }

  function start(entry: Entry): Promise<void> {
    const running = run(entry);
    inFlight.add(running);
    void running.finally(() => inFlight.delete(running));
    return running;
  }

  /** Records what finished since the last flush, and the heartbeats due (one transaction per batch). */
  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      const batch = done.splice(0);
      const beats = heartbeats.splice(0);
      if (!batch.length && !beats.length) return;
      await results.recordServerRuns(batch, beats).catch((error: unknown) => {
        log.error({ err: error, runs: batch.length }, 'Could not store check results');
      });
    });
    return flushing;
  }

  /** One tick: due checks started (up to the concurrency), heartbeats queued, finished runs stored. */
  async function tick(): Promise<void> {
    const nowMs = clock.now().getTime();
    if (nowMs - lastReload >= RELOAD_MS) await reload();
    const due = [...entries.values()]
      .filter((e) => e.runsHere && !e.running && e.nextMs <= nowMs)
      .sort((a, b) => a.nextMs - b.nextMs);
    for (const entry of due) {
      if (inFlight.size >= concurrency) break;
      void start(entry);
    }
    for (const entry of entries.values()) {
      if (entry.running || nowMs - entry.lastStoredMs < HEARTBEAT_MS) continue;
      entry.lastStoredMs = nowMs;
      heartbeats.push(entry.check.id);
    }
    await flush();
  }

  return {
    reload,
    tick,
    start(): void {
      if (timer) return;
      timer = setInterval(() => {
        tick().catch((error: unknown) => log.error({ err: error }, 'Checks runner tick failed'));
      }, TICK_MS);
      timer.unref();
    },
    /** Runs one check now, whatever its schedule, and stores the result (tests, and after a change). */
    async runNow(id: number): Promise<void> {
      await reload();
      const entry = entries.get(id);
      if (entry?.runsHere && !entry.running) await start(entry);
      await flush();
    },
    /** Stops starting runs; waits for those under way and stores them. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await Promise.all([...inFlight]);
      await flush();
    },
    /** How many checks are loaded and running (bench, tests). */
    figures: () => ({ loaded: entries.size, running: inFlight.size }),
  };
}

export type CheckRunner = ReturnType<typeof createCheckRunner>;
