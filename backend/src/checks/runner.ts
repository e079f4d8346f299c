/**
 * The server's checks runner ("argus" location): every enabled check on its interval, each at its
 * own phase of the interval (from its id) so that checks with the same interval do not fire
 * together; a failing check runs again at its retry interval. At most `concurrency` checks run at
 * once (each holds one socket or one `ping` process), and the runs finished are stored together
 * once a tick. A check whose next run is far off has its state stored again every
 * HEARTBEAT_MS, so the rules that read it see a fresh sample and the check is never silent.
 */
import { checkSettings, type CheckResult, type CheckSettings } from '../../../contracts/checks.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { OutboundPolicy } from '../lib/outbound-policy.js';
import type { SecretBox } from '../lib/secret-box.js';
import { headersToSend, openSecretHeaders } from './headers.js';
import { runProbe } from './probe.js';
import type { CheckRow, ChecksRepo, StoredRun } from './repo.js';
import { heartbeatRow, nextState, runRow, type CheckState } from './state.js';

export const HEARTBEAT_MS = 60_000;
const TICK_MS = 1000;
const RELOAD_MS = 15_000;
export const DEFAULT_CONCURRENCY = 64;

interface Entry {
  check: CheckRow;
  settings: CheckSettings;
  state: CheckState;
  last: CheckResult | null;
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

/** The host a check's certificate series is named by (its URL's host). */
const certHost = (settings: CheckSettings) => (settings.type === 'http' ? new URL(settings.url).hostname : '');

export interface CheckRunnerDeps {
  repo: ChecksRepo;
  box: SecretBox;
  clock: Clock;
  log: Logger;
  policy: OutboundPolicy;
  concurrency?: number;
  /** Told after the runs that changed these checks' state are stored (the consoles follow it live). */
  stateChanged?(ids: number[]): void;
}

export function createCheckRunner(deps: CheckRunnerDeps) {
  const { repo, box, clock, log, policy } = deps;
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  const entries = new Map<number, Entry>();
  const done: StoredRun[] = [];
  /** Checks whose state changed in the runs of `done`. */
  const turned = new Set<number>();
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
      state: previous?.state ?? { state: check.state, stateSince: check.stateSince, failures: check.failures },
      last: previous?.last ?? (check.lastResult as CheckResult | null),
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
        policy,
        () => clock.now(),
      );
      const before = entry.state.state;
      entry.state = nextState(entry.state, result, check.retries);
      if (entry.state.state !== before) turned.add(check.id);
      const row = runRow(check.id, result, entry.state, certHost(entry.settings));
      entry.last = row.state?.lastResult as CheckResult;
      entry.lastStoredMs = result.at.getTime();
      done.push(row);
      const wait = entry.state.failures > 0 ? Math.min(check.retryIntervalS, check.intervalS) : check.intervalS;
      const nowMs = clock.now().getTime();
      entry.nextMs = entry.state.failures > 0 ? nowMs + wait * 1000 : nextSlot(check.id, wait * 1000, nowMs);
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

  /** Stores what finished since the last flush (one statement per batch). */
  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      const batch = done.splice(0);
      const changed = [...turned];
      turned.clear();
      if (!batch.length) return;
      const stored = await repo.storeRuns(batch).then(
        () => true,
        (error: unknown) => {
          log.error({ err: error, runs: batch.length }, 'Could not store check results');
          return false;
        },
      );
      if (stored && changed.length) deps.stateChanged?.(changed);
    });
    return flushing;
  }

  /** One tick: due checks started (up to the concurrency), heartbeats queued, finished runs stored. */
  async function tick(): Promise<void> {
    const nowMs = clock.now().getTime();
    if (nowMs - lastReload >= RELOAD_MS) await reload();
    const due = [...entries.values()]
      .filter((e) => !e.running && e.nextMs <= nowMs)
      .sort((a, b) => a.nextMs - b.nextMs);
    for (const entry of due) {
      if (inFlight.size >= concurrency) break;
      void start(entry);
    }
    for (const entry of entries.values()) {
      if (entry.running || entry.state.state === 'PENDING' || nowMs - entry.lastStoredMs < HEARTBEAT_MS) continue;
      entry.lastStoredMs = nowMs;
      done.push(heartbeatRow(entry.check.id, new Date(nowMs), entry.state, entry.last, certHost(entry.settings)));
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
      if (entry && !entry.running) await start(entry);
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
