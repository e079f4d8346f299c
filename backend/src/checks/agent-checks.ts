/**
 * The checks agents run: what each agent gets with the answer to its reports (the checks of its
 * customer that name it among their locations, secret header values opened for it alone), and the
 * runs it sends back with its reports. The assignments are read once for every agent and kept
 * until a check changes or ASSIGNMENTS_TTL_MS passes: a report does not cost a query for them.
 */
import type { CheckRun } from '../../../contracts/agent-report.js';
import { agentCheck, type AgentCheck } from '../../../contracts/checks.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SecretBox } from '../lib/secret-box.js';
import { headersToSend, openSecretHeaders } from './headers.js';
import type { CheckRow, ChecksRepo } from './repo.js';
import type { CheckResults } from './results.js';

export const ASSIGNMENTS_TTL_MS = 30_000;

/** The checks each agent location runs, with their customer, as read at `at`. */
interface Assignments {
  at: number;
  byLocation: Map<string, { customerId: number; check: AgentCheck }[]>;
}

/** The agent (its system) that reports. */
export interface ReportingAgent {
  id: number;
  customerId: number;
}

export function createAgentChecks(deps: {
  repo: ChecksRepo;
  results: CheckResults;
  box: SecretBox;
  clock: Clock;
  log: Logger;
}) {
  const { repo, results, box, clock, log } = deps;
  let loaded: Assignments | null = null;
  let loading: Promise<Assignments> | null = null;

  /** A check as its agents get it; null when its stored settings no longer parse. */
  function asAgentCheck(row: CheckRow): AgentCheck | null {
    const secrets = openSecretHeaders(box, row.id, row.sealedHeaders);
    const headers = Object.entries(headersToSend(row.settings, secrets)).map(([name, value]) => ({
      name,
      value,
      secret: false,
    }));
    const parsed = agentCheck.safeParse({
      id: row.id,
      settings: row.settings['type'] === 'http' ? { ...row.settings, headers } : row.settings,
      intervalSeconds: row.intervalS,
      timeoutSeconds: row.timeoutS,
      retryIntervalSeconds: row.retryIntervalS,
      maxResponseMs: row.maxResponseMs,
    });
    if (!parsed.success) log.warn({ check: row.id }, 'A stored check has settings that no longer parse: not sent');
    return parsed.success ? parsed.data : null;
  }

  async function load(): Promise<Assignments> {
    const byLocation = new Map<string, { customerId: number; check: AgentCheck }[]>();
    for (const row of await repo.runByAgents()) {
      const check = asAgentCheck(row);
      if (!check) continue;
      for (const location of row.locations) {
        if (location === 'argus') continue;
        byLocation.set(location, [...(byLocation.get(location) ?? []), { customerId: row.customerId, check }]);
      }
    }
    return { at: clock.now().getTime(), byLocation };
  }

  async function assignments(): Promise<Assignments> {
    const nowMs = clock.now().getTime();
    if (loaded && nowMs - loaded.at < ASSIGNMENTS_TTL_MS && nowMs >= loaded.at) return loaded;
    loading ??= load().finally(() => (loading = null));
    loaded = await loading;
    return loaded;
  }

  return {
    /** The checks `agent` runs: of its customer, naming it among their locations. */
    async assignedTo(agent: ReportingAgent): Promise<AgentCheck[]> {
      const { byLocation } = await assignments();
      return (byLocation.get(`system:${agent.id}`) ?? [])
        .filter((a) => a.customerId === agent.customerId)
        .map((a) => a.check);
    },

    /** Records the runs an agent sent (a check no longer assigned to it is left out). */
    recordRuns(agent: ReportingAgent, runs: CheckRun[]): Promise<void> {
      return results.recordAgentRuns(
        agent.id,
        agent.customerId,
        runs.map((run) => ({
          checkId: run.id,
          result: {
            at: new Date(run.at),
            up: run.up,
            reason: run.reason,
            responseMs: run.responseMs,
            status: run.status,
            keywordMatched: run.keywordMatched,
            certDaysLeft: run.certDaysLeft,
            certValid: run.certValid,
            packetLossPct: run.packetLossPct,
            // decided by the check's own limit when recorded
            slow: false,
          },
        })),
      );
    },

    /** A check changed: the next report reads the assignments again. */
    changed(): void {
      loaded = null;
    },
  };
}

export type AgentChecks = ReturnType<typeof createAgentChecks>;
