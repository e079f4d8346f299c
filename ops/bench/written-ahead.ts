/**
 * `bench ingest`'s agents with their requests written before the timed phase: each request exactly
 * what the agent would send live (its gzip body, a new token), made before the clock starts and sent
 * on one raw keep-alive connection an agent (raw-http.ts). The bench shares the 2 cores with the
 * server it measures; writing and sending as the phase goes cost it ~0.4–0.9 ms a report (async
 * gzip through the thread pool, node:http), more than the server's own CPU a report.
 */
import type { SimulatedAgent } from '../agent-sim/agent.js';
import { postBytes, RawConnection, type RawAnswer } from './raw-http.js';
import { fmt } from './statistics.js';

/** Each agent's newest report time sent or written ahead (epoch ms): the next report comes after it. */
const lastTimes = new WeakMap<SimulatedAgent, number>();

/** The time of `agent`'s next report sent at once: now, or just after its last one. */
export function nextTime(agent: SimulatedAgent): number {
  const ts = Math.max(Date.now(), (lastTimes.get(agent) ?? 0) + 1);
  lastTimes.set(agent, ts);
  return ts;
}

/** How a phase's requests are made: written ahead and sent on raw connections, or by each agent as it goes. */
export interface PhaseOptions {
  /**
   * Write every request before the timed phase (the same gzip body and a new token each) and send
   * them on one raw keep-alive connection an agent. Enrolled agents only. Saturated, each agent writes
   * for `expectedRate` reports/s over the phase (more as it goes, counted).
   */
  prepared?: { expectedRate: number };
}

/** A phase's requests, written before it, and what writing them took. */
export interface Written {
  /** Per agent, its requests in order (whole HTTP requests). */
  requests: Buffer[][];
  /**
   * Per agent, its sender of them, already connected: a phase's first requests would otherwise each
   * time a connection's set-up, one for every agent within the phase's first period.
   */
  senders: AheadSender[];
  seconds: number;
  cpuMs: number;
}

/**
 * Every agent's requests for a phase of `seconds`: paced at `rate` reports/s in all, each report's time
 * when it is due; saturated (`rate` null), enough for `expectedRate`, their times spread over the phase.
 */
export async function writeAhead(
  agents: readonly SimulatedAgent[],
  url: string,
  seconds: number,
  rate: number | null,
  expectedRate: number,
): Promise<Written> {
  const perAgent = Math.ceil((seconds * (rate ?? expectedRate)) / agents.length) + 2;
  const spacing = rate ? (agents.length / rate) * 1000 : (seconds * 1000) / perAgent;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const requests: Buffer[][] = [];
  for (const agent of agents) {
    const base = Math.max(Date.now(), (lastTimes.get(agent) ?? 0) + 1);
    const times = Array.from({ length: perAgent }, (_, k) => base + Math.floor(k * spacing));
    lastTimes.set(agent, times.at(-1) as number);
    const written = await agent.prepareRequests(times);
    requests.push(written.map(({ headers, payload }) => postBytes(url, headers, payload)));
  }
  const used = process.cpuUsage(cpu);
  const senders = agents.map((agent, i) => new AheadSender(agent, url, requests[i] ?? []));
  await Promise.all(senders.map((sender) => sender.open()));
  return { requests, senders, seconds: (performance.now() - started) / 1000, cpuMs: (used.user + used.system) / 1000 };
}

export interface Outcome {
  /** The answer's status; 0: no answer. */
  status: number;
  /** From writing the request to its answer. */
  ms: number;
  /** Reports the server said it stored (200). */
  accepted: number;
  /** How long the server asked to be left alone (429, 503), ms. */
  waitMs: number;
}

/** One agent's written requests, sent one at a time. */
export class AheadSender {
  private next = 0;
  private readonly connection: RawConnection;
  /** Requests written during the phase: more were taken than written ahead. */
  writtenLate = 0;

  constructor(
    private readonly agent: SimulatedAgent,
    private readonly url: string,
    private readonly queue: readonly Buffer[],
  ) {
    this.connection = new RawConnection(url);
  }

  /** Connects before the phase (its first request then times the server, not the connection's set-up). */
  open(): Promise<void> {
    return this.connection.open();
  }

  async send(): Promise<Outcome> {
    let bytes = this.queue[this.next++];
    if (!bytes) {
      const [request] = await this.agent.prepareRequests([nextTime(this.agent)]);
      if (!request) throw new Error('no request written');
      bytes = postBytes(this.url, request.headers, request.payload);
      this.writtenLate += 1;
    }
    const sentAt = performance.now();
    let answer: RawAnswer;
    try {
      answer = await this.connection.send(bytes);
    } catch {
      return { status: 0, ms: performance.now() - sentAt, accepted: 0, waitMs: 50 };
    }
    const ms = performance.now() - sentAt;
    if (answer.status === 200) {
      const { accepted } = JSON.parse(answer.body.toString('utf8')) as { accepted?: unknown };
      return { status: 200, ms, accepted: typeof accepted === 'number' ? accepted : 0, waitMs: 0 };
    }
    const waitMs = answer.status === 429 || answer.status === 503 ? Number(answer.retryAfter ?? 1) * 1000 : 0;
    return { status: answer.status, ms, accepted: 0, waitMs };
  }

  close(): void {
    this.connection.close();
  }
}

/** The line a phase prints about its requests written ahead (`late`: written during the phase). */
export function writtenLine(
  written: { requests: number | Buffer[][]; seconds: number; cpuMs: number },
  late: number,
): string {
  const total =
    typeof written.requests === 'number' ? written.requests : written.requests.reduce((n, list) => n + list.length, 0);
  return (
    `    written ahead: ${fmt(total)} requests in ${written.seconds.toFixed(1)} s ` +
    `(${((written.cpuMs * 1000) / Math.max(1, total)).toFixed(0)} µs of CPU each)` +
    `${late ? `; ${fmt(late)} more written during the phase (sent with the bench's CPU counted)` : ''}`
  );
}
