/**
 * What the network checks' tests on the evaluation harness set up: a real HTTP server on loopback
 * answering the status a test sets (the "shop"), and the checks' repo, policy (private targets
 * allowed, as ARGUS_ALLOW_PRIVATE_CHECKS allows them), results, runner, agent checks and service
 * built as the checks assembly builds them, on the harness's database, box and fake clock.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CheckRun } from '../../../contracts/agent-report.js';
import { httpSettings, type CheckCreate } from '../../../contracts/checks.js';
import { createAgentChecks } from '../checks/agent-checks.js';
import { checksPolicy } from '../checks/policy.js';
import { createChecksRepo, type CheckFields } from '../checks/repo.js';
import { createCheckResults } from '../checks/results.js';
import { createCheckRunner } from '../checks/runner.js';
import { createChecksService } from '../checks/service.js';
import { auditTrailOn } from './audit.js';
import type { EvaluationHarness } from './evaluation-harness.js';

export interface Shop {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly port: number;
  /** The status every request is answered with from now on (200 at first). */
  answer: number;
  close(): Promise<void>;
}

export async function startShop(): Promise<Shop> {
  const server = http.createServer((_req, res) => res.writeHead(shop.answer).end('shop'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const shop: Shop = {
    url: `http://127.0.0.1:${port}/`,
    port,
    answer: 200,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return shop;
}

/** The checks' parts on the harness: the runner and the agents record through the same results. */
export function checkRig(h: EvaluationHarness) {
  const repo = createChecksRepo(h.knex);
  const policy = checksPolicy(true);
  const results = createCheckResults({ repo, clock: h.clock });
  const runner = createCheckRunner({ repo, box: h.box, clock: h.clock, log: h.logs.log, policy, results });
  const agents = createAgentChecks({ repo, results, box: h.box, clock: h.clock, log: h.logs.log });
  const audit = auditTrailOn(h.knex, h.clock);
  const checks = createChecksService({
    repo,
    box: h.box,
    clock: h.clock,
    audit,
    policy,
    changed: () => agents.changed(),
  });
  return { runner, agents, checks };
}

/** The settings of an HTTP check: a GET of `url` expecting 2xx (the schema's defaults). */
export function httpGet(url: string): CheckCreate['settings'] {
  return httpSettings.parse({ type: 'http', url });
}

/** A check of `settings` run every minute from the server alone, no retry; `changes` sets the rest. */
export function checkInput(
  customerId: number,
  name: string,
  changes: Pick<CheckCreate, 'settings'> & Partial<CheckCreate>,
): CheckCreate {
  return {
    customerId,
    clusterId: null,
    name,
    intervalSeconds: 60,
    timeoutSeconds: 5,
    retries: 0,
    retryIntervalSeconds: 20,
    maxResponseMs: null,
    locations: ['argus'],
    quorum: null,
    enabled: true,
    ...changes,
  };
}

/** One run of check `id` as an agent sends it with its report: up in 12 ms, or "connection refused". */
export function agentRun(id: number, up: boolean, at: Date): CheckRun {
  return {
    id,
    at: at.toISOString(),
    up,
    reason: up ? null : 'connection refused',
    responseMs: up ? 12 : null,
    status: null,
    keywordMatched: null,
    certDaysLeft: null,
    certValid: null,
    packetLossPct: null,
  };
}

/** The stored fields of a TCP check run every 20 s from the agents of `places` (system ids), quorum by default. */
export function agentTcpCheck(customerId: number, name: string, places: readonly number[]): CheckFields {
  return {
    customerId,
    clusterId: null,
    name,
    type: 'tcp',
    settings: { type: 'tcp', host: '10.0.0.5', port: 1194 },
    sealedHeaders: null,
    intervalS: 20,
    timeoutS: 5,
    retries: 0,
    retryIntervalS: 20,
    maxResponseMs: null,
    locations: places.map((id) => `system:${id}`),
    quorum: null,
    enabled: true,
  };
}
