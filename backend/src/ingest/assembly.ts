/**
 * The ingest feature, built once by the composition root: repo → group-commit writer → service →
 * the webhook's router. Mount the router BEFORE the app's body parser and authentication (routes.ts).
 */
import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { mountRoutes } from '../http/route.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { NO_INGEST_METRICS, type IngestMetrics } from '../lib/self-metrics.js';
import { createRateLimiter, type RateLimitStore } from '../ratelimit/rate-limiter.js';
import { withLocalLease } from '../ratelimit/leased.js';
import { createAdmission, type Admission, type AdmissionOptions } from './admission.js';
import { createGroupCommitWriter, type GroupCommitOptions, type GroupCommitWriter } from './group-commit.js';
import { createAgentTokenVerifier } from './jwt.js';
import { createIngestRepo } from './repo.js';
import { ingestRoutes } from './routes.js';
import { createContainerImagesRepo } from './container-images-repo.js';
import { createContainerImagesRecorder } from './container-images.js';
import { createScriptChecksRepo } from './script-checks-repo.js';
import { createScriptChecksRecorder } from './script-checks.js';
import {
  createIngestService,
  DEFAULT_REPORTS_PER_SYSTEM_PER_MINUTE,
  type IngestService,
  type IngestServiceDeps,
} from './service.js';
import type { IngestSystem, ReportingSystem, UpdateOffer } from './types.js';
import type { CheckRun } from '../../../contracts/agent-report.js';

export interface IngestDeps {
  db: Knex;
  bus: Pick<Bus, 'publish' | 'listens'>;
  clock: Clock;
  log: Logger;
  webhookSecret: string | null;
  /** config.retention.rawRetention.ms */
  rawRetentionMs: number;
  rateLimitStore: RateLimitStore;
  /** Accepted reports per system and minute (AGENT_REPORTS_PER_SYSTEM_PER_MINUTE, default 600). */
  reportsPerSystemPerMinute?: number;
  /** Failed token/agent-key/enrolment checks per client address and 10 minutes (default 60). */
  failuresPerAddress?: number;
  maxNewSystemsPerClusterPerHour?: number;
  groupCommit?: Omit<GroupCommitOptions, 'repo' | 'log' | 'observe'>;
  /** Argus's own metrics: reports and samples by outcome, group-commit statements. */
  metrics?: IngestMetrics;
  /** Seam: the agent settings in effect for a system, secrets in clear (default `{}`). */
  effectiveSettings?: (systemId: number) => Promise<Record<string, unknown>>;
  /** Seam: the update offered to a system (default none). */
  updateOffer?: (system: IngestSystem) => Promise<UpdateOffer | null>;
  /** Seams: the network checks an agent runs, and where the runs it sends back go (default none). */
  agentChecks?: (system: ReportingSystem) => Promise<unknown[]>;
  checkRuns?: (system: ReportingSystem, runs: CheckRun[]) => Promise<void>;
  /** When replayed batches are slowed with 429 (defaults in admission.ts). */
  admission?: Omit<AdmissionOptions, 'clock'>;
}

export interface IngestFeature {
  router: Router;
  writer: GroupCommitWriter;
  service: IngestService;
  /** Replays slowed while the write path is deep: its pending samples and refusals. */
  admission: Pick<Admission, 'pending' | 'refused'>;
  /** Shutdown: refuses new writes, stores what is queued and waits for it. */
  close(): Promise<void>;
}

/** Builds the ingest feature: repo → group-commit writer → service → router. */
export function assembleIngest(deps: IngestDeps): IngestFeature {
  const repo = createIngestRepo(deps.db);
  const metrics = deps.metrics ?? NO_INGEST_METRICS;
  const writer = createGroupCommitWriter({
    repo,
    log: deps.log,
    observe: (requests, samples, seconds) => metrics.batch(requests, samples, seconds),
    ...deps.groupCommit,
  });
  const limiter = (name: string, points: number, durationSeconds: number) =>
    createRateLimiter(deps.rateLimitStore, { name, points, durationSeconds }, deps.log);
  const reportsPerMinute = deps.reportsPerSystemPerMinute ?? DEFAULT_REPORTS_PER_SYSTEM_PER_MINUTE;
  const admission = createAdmission({ clock: deps.clock, ...deps.admission, onRefused: () => metrics.replaySlowed() });
  metrics.watchPending(
    () => admission.pending(),
    () => admission.limit(),
  );
  const serviceDeps: IngestServiceDeps = {
    repo,
    writer,
    admission,
    bus: deps.bus,
    clock: deps.clock,
    log: deps.log,
    rawRetentionMs: deps.rawRetentionMs,
    metrics,
    scriptChecks: createScriptChecksRecorder(createScriptChecksRepo(deps.db)),
    containerImages: createContainerImagesRecorder(createContainerImagesRepo(deps.db)),
    limits: {
      // docs/limits.md "Rate limits": failed agent authentication per client address; accepted reports per system
      failedAuth: limiter('agent-failures', deps.failuresPerAddress ?? 60, 10 * 60),
      // taken on every request: a tenth of it leased to this process at a time (leased.ts)
      reportsPerSystem: withLocalLease(
        limiter('agent-reports', reportsPerMinute, 60),
        Math.floor(reportsPerMinute / 10),
      ),
    },
    ...(deps.maxNewSystemsPerClusterPerHour !== undefined
      ? { maxNewSystemsPerClusterPerHour: deps.maxNewSystemsPerClusterPerHour }
      : {}),
    ...(deps.effectiveSettings ? { effectiveSettings: deps.effectiveSettings } : {}),
    ...(deps.updateOffer ? { updateOffer: deps.updateOffer } : {}),
    ...(deps.agentChecks ? { agentChecks: deps.agentChecks } : {}),
    ...(deps.checkRuns ? { checkRuns: deps.checkRuns } : {}),
  };
  const service = createIngestService(serviceDeps);
  const verifier = deps.webhookSecret
    ? createAgentTokenVerifier({ secret: deps.webhookSecret, clock: deps.clock })
    : null;
  return {
    router: mountRoutes(ingestRoutes, { service, verifier, admission }),
    writer,
    service,
    admission,
    close: () => writer.close(),
  };
}
