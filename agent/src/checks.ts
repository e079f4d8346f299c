/**
 * The network checks the server assigns to this agent (the answer's `checks`, kept with the
 * settings): each runs on its interval, again at its retry interval while it fails, at most
 * MAX_AT_ONCE at a time, with the probes the server runs (probes/). Nothing is refused by address:
 * reaching the customer's own network is what a check run from here is for. Each finished run waits
 * for the next report, which carries it (and the buffer keeps it while the server is away).
 */
import { lookup } from 'node:dns/promises';
import net, { isIP, type Socket } from 'node:net';
import type { CheckRun } from '../../contracts/agent-report.js';
import { MAX_CHECK_RUNS_PER_REPORT } from '../../contracts/agent-report-limits.js';
import type { AgentCheck } from '../../contracts/checks.js';
import type { ProbeNetwork } from '../../probes/outcome.js';
import { runProbe, type ProbeResult } from '../../probes/probe.js';

export const MAX_AT_ONCE = 8;
/** Runs kept while no report takes them (a report loop that stalls must not grow the agent). */
export const MAX_WAITING_RUNS = 2000;
const TICK_MS = 1000;

const bare = (host: string) => host.replace(/^\[|\]$/g, '');

/** The host's own network, as it is: names by the system's resolver, connections made directly. */
export const plainNetwork: ProbeNetwork = {
  connect: (host, port, signal) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = net.connect({ host: bare(host), port });
      const abort = () => socket.destroy(new Error('aborted'));
      const failed = (error: Error) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      };
      signal.addEventListener('abort', abort, { once: true });
      socket.once('error', failed);
      socket.once('connect', () => {
        signal.removeEventListener('abort', abort);
        socket.off('error', failed);
        resolve(socket);
      });
    }),
  resolve: async (host) => {
    if (isIP(bare(host))) return [bare(host)];
    return (await lookup(bare(host), { all: true, verbatim: true })).map((a) => a.address);
  },
  resolverRefusal: () => null,
};

function runOf(id: number, result: ProbeResult): CheckRun {
  return {
    id,
    at: result.at.toISOString(),
    up: result.up,
    reason: result.reason?.slice(0, 200) ?? null,
    responseMs: result.responseMs,
    status: result.status,
    keywordMatched: result.keywordMatched,
    certDaysLeft: result.certDaysLeft,
    certValid: result.certValid,
    packetLossPct: result.packetLossPct,
  };
}

export interface CheckSchedulerOptions {
  log(line: string): void;
  now?: () => number;
  network?: ProbeNetwork;
}

export function createCheckScheduler(options: CheckSchedulerOptions) {
  const now = options.now ?? Date.now;
  const network = options.network ?? plainNetwork;
  let assigned: AgentCheck[] = [];
  /** The ticker, running only while checks are assigned: a second's wake-up costs ~0.2 ms of CPU, 5 ms a 30 s report. */
  let ticker: NodeJS.Timeout | null = null;
  let started = false;
  const nextRun = new Map<number, number>();
  const running = new Set<number>();
  const finished: CheckRun[] = [];

  async function run(check: AgentCheck): Promise<void> {
    running.add(check.id);
    try {
      const headers =
        check.settings.type === 'http'
          ? Object.fromEntries(check.settings.headers.map((h) => [h.name, h.value ?? '']))
          : {};
      const result = await runProbe(
        {
          settings: check.settings,
          headers,
          timeoutMs: check.timeoutSeconds * 1000,
          maxResponseMs: check.maxResponseMs,
        },
        network,
        () => new Date(now()),
      );
      finished.push(runOf(check.id, result));
      if (finished.length > MAX_WAITING_RUNS) finished.splice(0, finished.length - MAX_WAITING_RUNS);
      const wait = result.up ? check.intervalSeconds : Math.min(check.retryIntervalSeconds, check.intervalSeconds);
      nextRun.set(check.id, now() + wait * 1000);
    } catch (error) {
      options.log(`check ${check.id} could not run (${(error as Error).message})`);
      nextRun.set(check.id, now() + check.intervalSeconds * 1000);
    } finally {
      running.delete(check.id);
    }
  }

  /** Starts the checks that are due (a newly assigned one at once), up to MAX_AT_ONCE. */
  function tick(): void {
    const at = now();
    for (const check of assigned) {
      if (running.size >= MAX_AT_ONCE) return;
      if (running.has(check.id) || (nextRun.get(check.id) ?? at) > at) continue;
      void run(check);
    }
  }

  /** The ticker runs exactly while the scheduler is started and has checks assigned. */
  function arm(): void {
    const wanted = started && assigned.length > 0;
    if (wanted && ticker === null) {
      ticker = setInterval(tick, TICK_MS);
      ticker.unref();
      tick();
    } else if (!wanted && ticker !== null) {
      clearInterval(ticker);
      ticker = null;
    }
  }

  return {
    /** The server's list (from an answer or the state directory); what does not parse is left out. */
    async assign(list: unknown): Promise<void> {
      const items = Array.isArray(list) ? list : [];
      // the schema, and zod with it, loaded only for a list to read: most agents are assigned none
      const schema = items.length > 0 ? (await import('../../contracts/checks.js')).agentCheck : null;
      const parsed = items.flatMap((item) => {
        const check = schema?.safeParse(item);
        return check?.success ? [check.data] : [];
      });
      const ids = new Set(parsed.map((c) => c.id));
      for (const id of nextRun.keys()) if (!ids.has(id)) nextRun.delete(id);
      // a changed check keeps its schedule; its new settings apply from its next run
      assigned = parsed;
      arm();
      if (parsed.length !== (Array.isArray(list) ? list.length : 0))
        options.log(`${(list as unknown[]).length - parsed.length} assigned check(s) could not be read; not run`);
    },
    /** The finished runs for the next report, oldest first (at most what one report carries). */
    take(): CheckRun[] {
      return finished.splice(0, MAX_CHECK_RUNS_PER_REPORT);
    },
    /** Ticks while checks are assigned, until `signal` aborts. */
    start(signal: AbortSignal): void {
      started = true;
      arm();
      signal.addEventListener(
        'abort',
        () => {
          started = false;
          arm();
        },
        { once: true },
      );
    },
    tick,
    /** How many checks are assigned and running, and whether the ticker runs (tests). */
    figures: () => ({
      assigned: assigned.length,
      running: running.size,
      waiting: finished.length,
      ticking: ticker !== null,
    }),
  };
}

export type CheckScheduler = ReturnType<typeof createCheckScheduler>;
