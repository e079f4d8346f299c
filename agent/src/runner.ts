/**
 * The service loop (`argus-agent run`): every interval, one report into the buffer, then the buffer
 * drained oldest first, up to 500 a request, each request with a fresh token.
 * 200 takes the batch off the buffer and applies the settings of the answer; 413 halves the batch;
 * 429 and 5xx wait Retry-After or a growing, jittered backoff; an unreachable or stalled server
 * (20 s) is tried again the same way; 401/403 say why and wait 5 minutes (no crash loop). The buffer
 * goes again as soon as its wait is over, between ticks if need be.
 * After a 429 (a busy server slowing replays), until a buffer is taken, each new report also goes
 * alone at its tick, before the buffer: the server takes a live report, so the system shows ONLINE
 * and fresh while its backlog waits. It stays in the buffer and comes again with the backlog (a
 * duplicate, stored once).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { AgentBody, AgentReport } from '../../contracts/agent-report.js';
import type { ReportBuffer } from './buffer.js';
import type { Collector } from './collect.js';
import type { AgentConfig } from './config.js';
import type { CheckScheduler } from './checks.js';
import type { BootWatch } from './events.js';
import type { HostFacts } from './facts.js';
import { saveIdentity, type Identity } from './identity.js';
import { saveSettings } from './settings-file.js';
import { agentToken } from './jwt.js';
import { sample } from './sample.js';
import { deliver, type Delivery } from './send.js';
import { AGENT_VERSION } from './version.js';

export const MAX_BATCH = 500;
const REFUSED_WAIT_MS = 5 * 60_000;
const MAX_BACKOFF_MS = 5 * 60_000;

export interface RunnerDeps {
  config: AgentConfig;
  identity: Identity;
  facts: HostFacts;
  collector: Collector;
  buffer: ReportBuffer;
  log(line: string): void;
  /** The settings of the last answer, shared with the collector (what it watches). */
  settings: { current: Record<string, unknown> };
  /** The `settings_rev` those settings came with (from the state directory after a restart). */
  settingsRev?: string;
  /** Reboots, sent once each. */
  boot?: BootWatch;
  /** The network checks the server assigns: each answer's list in, the finished runs out with each report. */
  checks?: Pick<CheckScheduler, 'assign' | 'take'>;
  /** Each accepted answer's `update` (update.ts: download, swap, restart). */
  update?: (offer: unknown) => Promise<void>;
  /** Tests: a shorter interval than config's seconds. */
  intervalMs?: number;
  random?: () => number;
}

/** 5 s, 10 s, 20 s … up to 5 minutes, each between half and all of it, so a fleet does not return in step. */
export function backoffMs(failures: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_BACKOFF_MS, 5000 * 2 ** Math.max(0, failures - 1));
  return Math.round(full * (0.5 + random() / 2));
}

/** The interval the server's settings ask for (agent setting `interval`, seconds), if valid. */
function intervalOf(settings: unknown): number | null {
  const value = Number((settings as Record<string, unknown> | null)?.['interval']);
  return Number.isInteger(value) && value >= 5 && value <= 3600 ? value * 1000 : null;
}

export async function runAgent(deps: RunnerDeps, signal: AbortSignal): Promise<void> {
  const { config, buffer, log } = deps;
  const random = deps.random ?? Math.random;
  let identity = deps.identity;
  let intervalMs = deps.intervalMs ?? config.interval * 1000;
  let batch = MAX_BATCH;
  let failures = 0;
  let waitUntil = 0;
  /**
   * The last buffer sent was refused with 429 (not an unreachable server or a 5xx: those would refuse
   * a live report too): until a buffer is taken, each tick's report goes alone first.
   */
  let slowedDown = false;
  let unreachableSince: number | null = null;
  let settingsRev = deps.settingsRev ?? '';

  const body = (reports: AgentReport[]): AgentBody => ({
    agent: {
      version: AGENT_VERSION,
      ...deps.facts,
      ...(!identity.agentKey && config.enrollment ? { enrollment: config.enrollment } : {}),
    },
    reports,
  });

  const pause = (ms: number, why: string, status: number | null = null) => {
    waitUntil = Date.now() + ms;
    slowedDown = status === 429;
    if (unreachableSince === null) {
      unreachableSince = Date.now();
      log(`${why}; reports are kept in the buffer and sent when it answers`);
    }
  };

  async function answered(sent: AgentReport[], answer: Delivery): Promise<boolean> {
    if (answer.status === 200) {
      await buffer.acknowledge(sent.length);
      slowedDown = false;
      failures = 0;
      if (unreachableSince !== null) log(`the server answers again; sending the buffered reports`);
      unreachableSince = null;
      const reply = answer.body as {
        agentKey?: string;
        settings?: unknown;
        settings_rev?: string;
        checks?: unknown[];
        update?: unknown;
      };
      if (reply.agentKey) {
        identity = { ...identity, agentKey: reply.agentKey };
        await saveIdentity(config.stateDir, identity);
      }
      if (reply.settings && typeof reply.settings === 'object' && reply.settings_rev !== settingsRev) {
        deps.settings.current = reply.settings as Record<string, unknown>;
        settingsRev = String(reply.settings_rev ?? '');
        const checks = Array.isArray(reply.checks) ? reply.checks : [];
        await deps.checks?.assign(checks);
        await saveSettings(config.stateDir, { rev: settingsRev, settings: deps.settings.current, checks });
      }
      if (deps.intervalMs === undefined) intervalMs = intervalOf(reply.settings) ?? config.interval * 1000;
      await deps.update?.(reply.update ?? null);
      return true;
    }
    if (answer.status === 413) {
      batch = Math.max(1, Math.floor(sent.length / 2));
      return true;
    }
    if (answer.status === 400) {
      // a report the server will never take: narrow it down, then let it go rather than block the rest
      if (sent.length > 1) batch = Math.max(1, Math.floor(sent.length / 2));
      else {
        log(`the server refused a report for good (${JSON.stringify(answer.body).slice(0, 200)}); dropped`);
        await buffer.acknowledge(1);
      }
      return true;
    }
    failures += 1;
    if (answer.status === 401 || answer.status === 403) {
      const error = (answer.body as { error?: string } | null)?.error ?? '';
      pause(
        REFUSED_WAIT_MS,
        `the server refused this agent (${answer.status} ${error}): check webhook_secret and the enrollment key`,
      );
      return false;
    }
    pause(
      answer.retryAfter !== null ? answer.retryAfter * 1000 : backoffMs(failures, random),
      `the server answered ${answer.status}`,
      answer.status,
    );
    return false;
  }

  /** One request with a fresh token. */
  const send = (reports: AgentReport[]): Promise<Delivery> =>
    deliver(
      config.webhookUrl,
      agentToken(config.webhookSecret, { sub: identity.sub, ak: identity.agentKey }),
      body(reports),
    );

  /** The report just collected, alone, while a 429 holds the buffer back; its answer changes nothing here. */
  async function sendLive(report: AgentReport): Promise<void> {
    try {
      await send([report]);
    } catch {
      // the buffer still holds it
    }
  }

  async function drain(): Promise<void> {
    while (!signal.aborted && Date.now() >= waitUntil) {
      const reports = await buffer.peek(batch);
      if (reports.length === 0) return;
      let answer: Delivery;
      try {
        answer = await send(reports);
      } catch (error) {
        failures += 1;
        pause(backoffMs(failures, random), `the server is unreachable (${(error as Error).message})`);
        return;
      }
      if (!(await answered(reports, answer))) return;
      if (answer.status === 200 && reports.length < batch) return;
    }
  }

  while (!signal.aborted) {
    const started = Date.now();
    const report = await deps.collector.report((await deps.boot?.events()) ?? []);
    report.metrics.push(sample('agent.buffered_reports', await buffer.size()));
    const runs = deps.checks?.take() ?? [];
    if (runs.length) report.checks = runs;
    await buffer.append(report);
    await deps.boot?.commit();
    // first, so a tick whose buffer is refused again still brings the system's newest report
    if (slowedDown && identity.agentKey) await sendLive(report);
    await drain();
    // a buffer held back (Retry-After, a backoff) goes again when its wait is over, not at the next tick after it
    const tick = started + intervalMs;
    while (!signal.aborted && waitUntil > Date.now() && waitUntil < tick) {
      await sleep(waitUntil - Date.now(), signal);
      await drain();
    }
    await sleep(Math.max(0, tick - Date.now()), signal);
  }
}

/** Waits `ms`, or until the signal aborts (then it resolves early: the loop sees the signal). */
const sleep = (ms: number, signal: AbortSignal): Promise<unknown> =>
  delay(ms, undefined, { signal }).catch(() => undefined);
