/**
 * One load-generating process of `bench replay` (replay.ts forks a few): drives its share of the
 * simulated agents through the phases the parent announces and sends back progress every second
 * and, at the end, its latencies, answers and how many reports each agent made.
 *
 * Each agent ticks every interval (the whole fleet spread over it): it collects a report and, unless
 * its previous request is still out, sends its buffer, oldest first (agent-sim: up to 500 a
 * request, 429 and Retry-After honoured); a buffer held back goes again when its wait is over, before
 * the next tick if that is later (as the argus-agent does). At the recovery each agent's backlog is filled with what
 * the outage's minutes would have made (replay.ts tells how the outage is compressed).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SimulatedAgent, type SendResult } from '../agent-sim/agent.js';

export interface WorkerStart {
  type: 'start';
  url: string;
  secret: string;
  intervalMs: number;
  outageMs: number;
  backlogPerAgent: number;
  /** All agents of the fleet (the schedule spreads them all over the interval). */
  fleetSize: number;
  startAt: number;
  agents: { index: number; sub: string; hostname: string; agentKey: string; duplicates: boolean }[];
}

export type Phase = 'warm-up' | 'outage' | 'replay' | 'after' | 'drain';
export type WindowName = 'before' | 'replay' | 'after';

export interface WindowFigures {
  live: number[];
  replayed: number[];
  /** The waits (s) the refused requests were told, by Retry-After. */
  waits: number[];
  statuses: [number, number][];
  accepted: number;
  duplicates: number;
}

export interface WorkerProgress {
  type: 'progress';
  backlog: number;
  waiting: number;
  buffered: number;
  inFlight: number;
  refused: number;
  loopDelayP99Ms: number;
  /** Agents whose backlog is filled and compressed (the outage phase). */
  prepared: number;
}

export interface WorkerResult {
  type: 'result';
  windows: Record<WindowName, WindowFigures>;
  made: [number, number][];
}

const send = (message: WorkerProgress | WorkerResult) => process.send?.(message);

function newFigures(): WindowFigures & { statusMap: Map<number, number> } {
  return { live: [], replayed: [], waits: [], statuses: [], statusMap: new Map(), accepted: 0, duplicates: 0 };
}

function drive(start: WorkerStart) {
  const { intervalMs } = start;
  const agents = start.agents.map(
    (a) =>
      new SimulatedAgent({
        url: start.url,
        secret: start.secret,
        sub: a.sub,
        hostname: a.hostname,
        seed: a.index + 1,
        gzip: true,
        agentKey: a.agentKey,
      }),
  );
  const made = agents.map(() => 0);
  const warmupTimes = agents.map(() => new Set<number>());
  const inFlight = agents.map(() => false);
  const windows = { before: newFigures(), replay: newFigures(), after: newFigures() };
  let current: WindowName = 'before';
  let phase: Phase = 'warm-up';
  let collecting = true;
  let cutAt = 0;
  let prepared = 0;
  let stopped = false;
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();

  const record = (w: ReturnType<typeof newFigures>, result: SendResult, now: number, agent: SimulatedAgent) => {
    w.statusMap.set(result.status, (w.statusMap.get(result.status) ?? 0) + 1);
    // the wait counts from the request's start (agent-sim: blockedUntil = its start + Retry-After)
    if (result.status === 429) w.waits.push(Math.round((agent.retryAt - (Date.now() - result.ms)) / 1000));
    if (result.status !== 200) return;
    // live: nothing older than two intervals in the request
    (result.oldestMs >= now - 2 * intervalMs ? w.live : w.replayed).push(result.ms);
    w.accepted += result.accepted ?? 0;
    w.duplicates += result.duplicates ?? 0;
  };

  /** The buffer held back by Retry-After goes again when the wait is over, before the next tick (as runner.ts). */
  const wakeAfterWait = (k: number, nextTick: number) => {
    const at = (agents[k] as SimulatedAgent).retryAt;
    if (at <= Date.now() || at >= nextTick) return;
    setTimeout(() => void resend(k, nextTick), at - Date.now());
  };

  const resend = async (k: number, nextTick: number) => {
    if (inFlight[k] || stopped) return;
    inFlight[k] = true;
    const w = windows[current];
    try {
      const now = Date.now();
      // the buffer itself: the new report went alone at the tick, if at all (as runner.ts)
      const result = await (agents[k] as SimulatedAgent).send(now, true);
      if (result) record(w, result, now, agents[k] as SimulatedAgent);
    } finally {
      inFlight[k] = false;
    }
    wakeAfterWait(k, nextTick);
  };

  const tick = async (k: number) => {
    const agent = agents[k] as SimulatedAgent;
    const now = Date.now();
    if (collecting) {
      agent.collect(now);
      made[k] = (made[k] ?? 0) + 1;
      if (phase === 'warm-up') warmupTimes[k]?.add(now);
    }
    if (inFlight[k]) return;
    inFlight[k] = true;
    const w = windows[current];
    try {
      // after a refused buffer a tick sends the new report alone first, then the buffer if its wait is over
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await agent.send(Date.now());
        if (!result) break;
        record(w, result, now, agent);
        if (result.sent > 1 || result.status !== 200 || agent.buffered === 0) break;
      }
    } finally {
      inFlight[k] = false;
    }
    wakeAfterWait(k, now + intervalMs);
  };

  const timers: NodeJS.Timeout[] = [];
  start.agents.forEach((a, k) => {
    const offset = Math.floor((a.index / start.fleetSize) * intervalMs);
    timers.push(
      setTimeout(
        () => {
          void tick(k);
          timers.push(setInterval(() => void tick(k), intervalMs));
        },
        Math.max(0, start.startAt + offset - Date.now()),
      ),
    );
  });

  const progress = setInterval(() => {
    send({
      type: 'progress',
      backlog: agents.reduce((sum, a) => sum + a.backlogged, 0),
      waiting: agents.filter((a) => a.backlogged > 0).length,
      buffered: agents.reduce((sum, a) => sum + a.buffered, 0),
      inFlight: inFlight.filter(Boolean).length,
      refused: windows[current].statusMap.get(429) ?? 0,
      loopDelayP99Ms: lag.percentile(99) / 1e6,
      prepared,
    });
    lag.reset();
  }, 1000);

  /**
   * While cut off, each agent's buffer gets what the outage's earlier minutes made (one report an
   * interval before the cut; the real cut adds what it collects), compressed as it would be written.
   * One agent after the other: 10,000 backlogs at once would hold gigabytes waiting to be compressed.
   */
  async function fillBacklogs(): Promise<void> {
    for (const [k, a] of start.agents.entries()) {
      const agent = agents[k] as SimulatedAgent;
      const offset = Math.floor((a.index / start.fleetSize) * intervalMs);
      const times: number[] = [];
      for (let n = 1; n < start.backlogPerAgent; n++) {
        let ms = cutAt - start.outageMs + n * intervalMs + offset;
        if (ms >= cutAt) break;
        while (warmupTimes[k]?.has(ms)) ms += 1; // the warm-up lies within the outage's minutes
        times.push(ms);
      }
      agent.backfill(times);
      made[k] = (made[k] ?? 0) + times.length;
      await agent.prepareBacklog();
      prepared += 1;
    }
  }

  return {
    phase(next: Phase, at: number) {
      phase = next;
      if (next === 'outage') {
        cutAt = at;
        for (const agent of agents) agent.setFault('offline');
        void fillBacklogs();
      } else if (next === 'replay') {
        start.agents.forEach((a, k) => agents[k]?.setFault(a.duplicates ? 'replay' : null));
        current = 'replay';
      } else if (next === 'after') {
        current = 'after';
      } else if (next === 'drain') {
        collecting = false;
      }
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      clearInterval(progress);
      lag.disable();
      while (inFlight.some(Boolean)) await new Promise((resolve) => setTimeout(resolve, 100));
      const out = (w: ReturnType<typeof newFigures>): WindowFigures => ({
        live: w.live,
        replayed: w.replayed,
        waits: w.waits,
        statuses: [...w.statusMap],
        accepted: w.accepted,
        duplicates: w.duplicates,
      });
      send({
        type: 'result',
        windows: { before: out(windows.before), replay: out(windows.replay), after: out(windows.after) },
        made: start.agents.map((a, k) => [a.index, made[k] ?? 0]),
      });
    },
  };
}

let driver: ReturnType<typeof drive> | null = null;
let stopping = false;
process.once('disconnect', () => stopping || process.exit(0)); // the bench went away
process.on('message', (message: WorkerStart | { type: 'phase'; phase: Phase; at: number } | { type: 'stop' }) => {
  if (message.type === 'start') driver = drive(message);
  else if (message.type === 'phase') driver?.phase(message.phase, message.at);
  else if (message.type === 'stop') {
    stopping = true;
    void driver?.stop(); // the bench ends this process once it has the result (a disconnect here cut large results off)
  }
});
