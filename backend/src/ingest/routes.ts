/**
 * POST /api/webhook/metrics (docs/protocol.md "Agent protocol"). Mount this router
 * BEFORE the app's body parser and authentication: it reads its own (gzip) body
 * of up to 4 MiB, and its Bearer token is an agent JWT, not an API token.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';
import { HttpError, PayloadTooLarge } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { NO_INGEST_METRICS, type IngestMetrics } from '../lib/self-metrics.js';
import { createRateLimiter, type RateLimitStore } from '../ratelimit/rate-limiter.js';
import { withLocalLease } from '../ratelimit/leased.js';
import { MAX_BODY_BYTES, parseJsonBody, readBody } from './body.js';
import { createGroupCommitWriter, type GroupCommitOptions, type GroupCommitWriter } from './group-commit.js';
import { createAgentTokenVerifier, type AgentTokenVerifier } from './jwt.js';
import { parseAgentBody } from './agent-body.js';
import { createIngestRepo } from './repo.js';
import { createAdmission, type Admission, type AdmissionOptions } from './admission.js';
import { agentBodySchema } from '../../../contracts/agent-report.js';
import {
  AgentRefusal,
  createIngestService,
  DEFAULT_REPORTS_PER_SYSTEM_PER_MINUTE,
  type IngestService,
  type IngestServiceDeps,
  type IngestSystem,
  type UpdateOffer,
} from './service.js';
import { refusalDoc } from '../http/openapi.js';
import { mountRoutes, routeOf } from '../http/route.js';
import { ingestAnswer } from '../../../contracts/agents.js';

export const WEBHOOK_PATH = '/api/webhook/metrics';

class UnsupportedMediaType extends HttpError {
  constructor(message: string) {
    super(415, message, 'unsupported_media_type');
  }
}

export interface IngestRouteDeps {
  service: IngestService;
  /** null when WEBHOOK_SECRET is unset. */
  verifier: AgentTokenVerifier | null;
  maxBodyBytes?: number;
  admission?: Pick<Admission, 'checkBody'>;
}

/**
 * The report, in its own order: the JWT (401/403, failures limited per address), the media type and
 * encoding (415), the agent (403, enrolment), then the body read from the stream (413, 400), then the
 * store (429 with Retry-After). No guard, no parsed input: the handler does all of it.
 */
async function report(deps: IngestRouteDeps, ctx: Context): Promise<unknown> {
  const { service, verifier } = deps;
  let bodyRead = false;
  try {
    if (!verifier) throw new AgentRefusal(500, 'Server misconfigured');
    const ip = ctx.state.clientIp;
    const token = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    const claims = (token ? await verifier.verify(token) : null) ?? (await service.refuseToken(ip));

    const type = ctx.get('content-type').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') throw new UnsupportedMediaType('Send JSON (Content-Type: application/json)');
    const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
    if (encoding !== 'gzip' && encoding !== 'identity')
      throw new UnsupportedMediaType('Content-Encoding must be gzip or none');

    const agent = await service.identify(claims, ip);
    const raw = await readBody(ctx.req, encoding === 'gzip', deps.maxBodyBytes ?? MAX_BODY_BYTES);
    bodyRead = true;
    deps.admission?.checkBody(raw);
    const body = parseAgentBody(parseJsonBody(raw));
    ctx.set('Cache-Control', 'no-store');
    return await service.ingest(agent, body, ip);
  } catch (error) {
    // a body we did not read to its end is not worth reading: close after answering
    if (!bodyRead || error instanceof PayloadTooLarge) ctx.set('Connection', 'close');
    if (error instanceof AgentRefusal) {
      ctx.status = error.status;
      return { error: error.message };
    }
    throw error;
  }
}

const route = routeOf<IngestRouteDeps>();

export const ingestRoutes = [
  route({
    method: 'post',
    path: WEBHOOK_PATH,
    tag: 'Agents',
    access: 'agent',
    summary: "An agent's reports (gzip JSON, up to 500 a request)",
    description:
      'docs/protocol.md "Agent protocol": a JWT per request (HS256, 5 minutes), the enrolment key on the first report only. Duplicates are answered 2xx and stored once.',
    streamedBody: agentBodySchema,
    responses: {
      200: { description: 'Stored; the settings and any update offered', schema: ingestAnswer },
      403: refusalDoc('Unknown agent, or a refused enrolment'),
      413: refusalDoc('The body is larger than 4 MiB (unpacked)'),
      415: refusalDoc('Not JSON, or an encoding other than gzip'),
      429: refusalDoc(
        'Nothing stored; send again after Retry-After. Too many reports for this system ' +
          '(AGENT_REPORTS_PER_SYSTEM_PER_MINUTE), too many new systems in the cluster ' +
          '(AGENT_ENROLL_PER_CLUSTER_PER_HOUR), too many failed checks from the address, or a replayed ' +
          'batch while the server is busy storing live reports',
      ),
      500: refusalDoc('WEBHOOK_SECRET is not configured'),
    },
    handler: (deps, { ctx }) => report(deps, ctx),
  }),
];

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
export function createIngest(deps: IngestDeps): IngestFeature {
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
  metrics.watchPending(() => admission.pending());
  const serviceDeps: IngestServiceDeps = {
    repo,
    writer: admission.tracking(writer),
    admission,
    bus: deps.bus,
    clock: deps.clock,
    log: deps.log,
    rawRetentionMs: deps.rawRetentionMs,
    metrics,
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
