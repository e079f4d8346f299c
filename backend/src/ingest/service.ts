/**
 * The rules of the agent webhook (docs/protocol.md "Agent protocol"): who an agent
 * is (its `sub`, bound to its system by the agent key `ak`), enrolment of new
 * systems with a cluster's enrollment key, the limits, the time window, and
 * what is stored and published. Knows no Koa; routes.ts renders its answers.
 */
import type { Bus } from '../bus/bus.js';
import { TooMany } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import { equalDigests, randomToken, safeEqual, sha256 } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import { NO_INGEST_METRICS, type IngestMetrics } from '../lib/self-metrics.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { GroupCommitWriter, ReportToStore, WriteOutcome } from './group-commit.js';
import type { IngestAnswer, IngestSystem, ReportingSystem, UpdateOffer, VerifiedAgent } from './types.js';
import type { Admission } from './admission.js';
import type { AgentClaims } from './jwt.js';
import type { AgentSystemRow, EnrollmentRefusalReason, IngestRepo } from './repo.js';
import type { ContainerImagesRecorder } from './container-images.js';
import type { ScriptChecksRecorder } from './script-checks.js';
import { createSettingsRevisions } from './settings-revision.js';
import { createSeriesSets } from './series-sets.js';
import type { AgentBody, AgentInfo, CheckRun } from '../../../contracts/agent-report.js';
import type { LiveReport } from '../../../contracts/live.js';

/** A refusal whose body the contract fixes exactly (`{error: "Unauthorized"}`, `{error: "Unknown agent"}`). */
export class AgentRefusal extends Error {
  constructor(
    readonly status: 401 | 403 | 500,
    message: string,
  ) {
    super(message);
    this.name = 'AgentRefusal';
  }
}

export const unauthorized = () => new AgentRefusal(401, 'Unauthorized');
const unknownAgent = () => new AgentRefusal(403, 'Unknown agent');

export interface IngestServiceDeps {
  repo: IngestRepo;
  writer: Pick<GroupCommitWriter, 'write'>;
  bus: Pick<Bus, 'publish' | 'listens'>;
  clock: Clock;
  log: Logger;
  /** METRICS_RAW_RETENTION in ms: older reports are skipped. */
  rawRetentionMs: number;
  /** Failed authentication/enrolment per client address; accepted reports per system id. */
  limits: { failedAuth: RateLimiter; reportsPerSystem: RateLimiter };
  maxNewSystemsPerClusterPerHour?: number;
  /** Seams for agent settings and updates (other features fill them). */
  effectiveSettings?: (systemId: number) => Promise<Record<string, unknown>>;
  updateOffer?: (system: IngestSystem) => Promise<UpdateOffer | null>;
  /** Seams for network checks run by agents: what the agent runs, and the runs it sent back. */
  agentChecks?: (system: ReportingSystem) => Promise<unknown[]>;
  checkRuns?: (system: ReportingSystem, runs: CheckRun[]) => Promise<void>;
  /** Argus's own metrics: what became of each request's reports and samples. */
  metrics?: IngestMetrics;
  /** Replayed batches are slowed with 429 while the write path is deep (admission.ts). */
  admission?: Pick<Admission, 'check'>;
  /** Script checks' states and messages (the reports' `scripts`). */
  scriptChecks?: ScriptChecksRecorder;
  /** Containers' images (the reports' `containers`). */
  containerImages?: ContainerImagesRecorder;
}

/** A body's parts the store needs (service.ts intake): no sample object of it. */
interface Intake {
  info: AgentInfo;
  inWindow: ReportToStore[];
  /** Reports outside the storage window, and their samples. */
  skipped: number;
  skippedSamples: number;
  /** Reports with a text channel besides events (script checks, containers), without their samples. */
  withText: AgentBody['reports'];
  /** The network checks' runs of the reports in the window. */
  runs: CheckRun[];
}

export const FUTURE_TOLERANCE_MS = 5 * 60_000;
/** docs/limits.md "Rate limits": accepted reports per system and minute, unless AGENT_REPORTS_PER_SYSTEM_PER_MINUTE says. */
export const DEFAULT_REPORTS_PER_SYSTEM_PER_MINUTE = 600;

export function createIngestService(deps: IngestServiceDeps) {
  const { repo, limits, log } = deps;
  const maxNewSystems = deps.maxNewSystemsPerClusterPerHour ?? 1000;
  const effectiveSettings = deps.effectiveSettings ?? (() => Promise.resolve({}));
  const updateOffer = deps.updateOffer ?? (() => Promise.resolve(null));
  const agentChecks = deps.agentChecks ?? (() => Promise.resolve([]));
  const metrics = deps.metrics ?? NO_INGEST_METRICS;
  const revisionOf = createSettingsRevisions();
  const seriesSets = createSeriesSets();
  const samplesIn = (reports: readonly { metrics: readonly unknown[] }[]) =>
    reports.reduce((sum, report) => sum + report.metrics.length, 0);

  /** Reports and samples by outcome, once the store has decided (or nothing was to be stored). */
  function count({ inWindow, skipped, skippedSamples }: Intake, stored: boolean[]): void {
    const values = (reports: ReportToStore[]) => reports.reduce((sum, report) => sum + report.values.length, 0);
    const accepted = inWindow.filter((_, index) => stored[index]);
    const duplicates = inWindow.filter((_, index) => !stored[index]);
    metrics.reports('accepted', accepted.length, values(accepted));
    metrics.reports('duplicate', duplicates.length, values(duplicates));
    metrics.reports('skipped', skipped, skippedSamples);
  }

  /** The console counts refused hosts per cluster; a failure to count never changes the answer. */
  async function recordRefusal(clusterId: number, agentId: string, reason: EnrollmentRefusalReason): Promise<void> {
    try {
      await repo.recordEnrollmentRefusal({ clusterId, agentId, reason, now: deps.clock.now() });
    } catch (error) {
      log.error({ err: error, clusterId }, 'Could not record a refused enrolment');
    }
  }

  /** Counts a failed check for the address; over the limit the answer is 429 instead. */
  async function refuse(clientIp: string, refusal: AgentRefusal): Promise<never> {
    const limit = await limits.failedAuth.consume(clientIp);
    if (!limit.allowed) throw new TooMany(limit.retryAfterSeconds, 'Too many failed agent requests');
    throw refusal;
  }

  async function enroll(agent: VerifiedAgent, info: AgentInfo, clientIp: string): Promise<AgentSystemRow> {
    const refusal = agent.system ? unauthorized() : unknownAgent();
    const key = info.enrollment;
    if (!key) return refuse(clientIp, refusal);
    // an address over the limit gets no more key checks at all
    const blocked = await limits.failedAuth.peek(clientIp);
    if (!blocked.allowed) throw new TooMany(blocked.retryAfterSeconds, 'Too many failed agent requests');
    const cluster = await repo.findClusterByEnrollmentKey(key);
    if (!cluster || !safeEqual(cluster.enrollmentKey, key)) return refuse(clientIp, refusal);

    if (agent.system) {
      // re-enrolment binds anew, but only with a key of the system's own customer (and cluster)
      const { customerId, clusterId } = agent.system;
      if (cluster.customerId !== customerId || (clusterId !== null && clusterId !== cluster.id)) {
        await recordRefusal(cluster.id, agent.claims.sub, 'other-customer');
        return refuse(clientIp, refusal);
      }
      return agent.system;
    }
    const registration = await repo.registerSystem({
      agentId: agent.claims.sub,
      cluster,
      name: info.hostname || agent.claims.sub,
      hostname: info.hostname ?? '',
      now: deps.clock.now(),
      maxPerHour: maxNewSystems,
    });
    if (registration.kind === 'limit') {
      log.warn({ clusterId: cluster.id }, 'Enrolment refused: too many new systems in this cluster this hour');
      await recordRefusal(cluster.id, agent.claims.sub, 'hourly-limit');
      const which = registration.raisedUntil
        ? `raised by an administrator until ${registration.raisedUntil.toISOString()}`
        : 'AGENT_ENROLL_PER_CLUSTER_PER_HOUR';
      throw new TooMany(
        registration.retryAfterSeconds,
        `This cluster enrolled ${registration.limit} new systems in the last hour, its limit ` +
          `(${which}): try again in ${Math.ceil(registration.retryAfterSeconds)} s`,
      );
    }
    if (registration.kind === 'created') {
      log.info({ systemId: registration.system.id, clusterId: cluster.id }, 'Agent enrolled: new system');
      void deps.bus.publish('systems', { id: registration.system.id });
    }
    return registration.system;
  }

  /**
   * What the store needs of a body, taken from it before anything is awaited: the parsed body (its
   * sample objects) is dropped once this returns, so it dies young instead of waiting with its
   * request for the commit (docs/decisions.md "Ingest: a report's samples packed before they queue").
   */
  function intake(systemId: number, body: AgentBody): Intake {
    const now = deps.clock.now().getTime();
    const oldest = now - deps.rawRetentionMs;
    const newest = now + FUTURE_TOLERANCE_MS;
    const taken: Intake = { info: body.agent, inWindow: [], skipped: 0, skippedSamples: 0, withText: [], runs: [] };
    for (const report of body.reports) {
      const ms = Date.parse(report.ts);
      if (!(ms >= oldest && ms <= newest)) {
        taken.skipped += 1;
        taken.skippedSamples += report.metrics.length;
        continue;
      }
      // the parsed samples are not kept: their set and values are (series-sets.ts)
      const { set, values } = seriesSets.pack(systemId, report.metrics);
      taken.inWindow.push({ ms, set, values, events: report.events ?? [] });
      if (report.scripts || report.containers) taken.withText.push({ ...report, metrics: [] });
      if (report.checks) taken.runs.push(...report.checks);
    }
    return taken;
  }

  /** The reports are committed: a failure here is logged, and the answer stays 200 (a retry would only duplicate). */
  async function recordTexts(systemId: number, reports: AgentBody['reports']): Promise<void> {
    const recorders = [
      [deps.scriptChecks, 'the script checks'],
      [deps.containerImages, "the containers' images"],
    ] as const;
    for (const [recorder, what] of recorders) {
      try {
        await recorder?.record(systemId, reports);
      } catch (error) {
        log.error({ err: error, systemId }, `Could not record ${what} of a report`);
      }
    }
  }

  /**
   * Not async: the body is taken apart (intake) before the first await, so no suspended frame holds
   * it; only an enrolment (a system's first request) keeps it until its system exists.
   */
  function ingest(agent: VerifiedAgent, body: AgentBody, clientIp: string): Promise<IngestAnswer> {
    const reports = body.reports.length;
    const samples = samplesIn(body.reports);
    let counted = false;
    const onCounted = () => (counted = true);
    const stored = agent.needsEnrollment
      ? enroll(agent, body.agent, clientIp).then((system) =>
          storeReports(agent, system, intake(system.id, body), onCounted),
        )
      : storeReports(
          agent,
          agent.system as AgentSystemRow,
          intake((agent.system as AgentSystemRow).id, body),
          onCounted,
        );
    return stored.catch((error: unknown) => {
      // refused before the store decided (enrolment, limits, the database): none of it was kept
      if (!counted) metrics.reports('refused', reports, samples);
      throw error;
    });
  }

  /** The system's reports a minute (429 with Retry-After beyond them). */
  async function consumeReportLimit(systemId: number, reports: number): Promise<void> {
    const limit = await limits.reportsPerSystem.consume(String(systemId), reports);
    if (limit.allowed) return;
    const wait = Math.ceil(limit.retryAfterSeconds);
    throw new TooMany(
      limit.retryAfterSeconds,
      `Too many reports for this system: more than ${limits.reportsPerSystem.points} ` +
        `a minute (AGENT_REPORTS_PER_SYSTEM_PER_MINUTE): send them again in ${wait} s`,
    );
  }

  /**
   * The newest stored report goes to open dashboards (`system:<id>`); with none open its 60
   * objects and their JSON are not made at all (a tenth of the request's CPU).
   */
  function publishNewest(systemId: number, inWindow: readonly ReportToStore[], stored: readonly boolean[]): void {
    const liveTopic = `system:${systemId}`;
    if (!deps.bus.listens(liveTopic)) return;
    let newest: ReportToStore | null = null;
    for (const [index, report] of inWindow.entries()) {
      if (stored[index] && (!newest || report.ms > newest.ms)) newest = report;
    }
    if (!newest) return;
    const { set, values } = newest;
    void deps.bus.publish(liveTopic, {
      ts: new Date(newest.ms).toISOString(),
      metrics: values.map((value, k) => ({
        name: set.names[k] as string,
        instance: set.instances[k] as string,
        value,
      })),
    } satisfies LiveReport);
  }

  /**
   * Admits the reports, takes them from the system's report limit, records its check runs and hands
   * the reports to the writer; `writing` settles with the commit. From the admission until the write
   * settles the reports are held as pending by their reservation (admission.ts), so requests awaiting
   * their limit meanwhile see them.
   */
  async function handToWriter(system: AgentSystemRow, taken: Intake): Promise<{ writing: Promise<WriteOutcome> }> {
    const { inWindow, runs, info } = taken;
    const reservation = deps.admission?.check(inWindow);
    try {
      await consumeReportLimit(system.id, inWindow.length);
      // before the reports: recording runs is idempotent (a replayed run is older than the last), a
      // report stored once is not, so a failure here leaves the whole request to be sent again
      if (runs.length && deps.checkRuns) await deps.checkRuns({ id: system.id, customerId: system.customerId }, runs);
      const writing = deps.writer.write({
        systemId: system.id,
        reports: inWindow,
        touch: {
          seenAt: deps.clock.now(),
          version: info.version ?? null,
          hostname: info.hostname ?? null,
          os: info.os ?? null,
          kernel: info.kernel ?? null,
          arch: info.arch ?? null,
          cores: info.cores ?? null,
        },
        replay: reservation?.replay ?? false,
      });
      reservation?.holdUntil(writing);
      return { writing };
    } catch (error) {
      reservation?.release(); // refused before the write: nothing of it is pending
      throw error;
    }
  }

  async function storeReports(
    agent: VerifiedAgent,
    system: AgentSystemRow,
    taken: Intake,
    onCounted: () => void,
  ): Promise<IngestAnswer> {
    const { inWindow, skipped, withText, info } = taken;

    let stored: boolean[] = [];
    if (inWindow.length > 0) {
      const { writing } = await handToWriter(system, taken);
      const outcome = await writing;
      stored = outcome.stored;
      if (outcome.statusChange) void deps.bus.publish('systems', { id: system.id });
      if (withText.length) await recordTexts(system.id, withText);
    }
    count(taken, stored);
    onCounted();

    publishNewest(system.id, inWindow, stored);

    // the first stored (or already stored) report binds the system to a new agent key
    let agentKey: string | undefined;
    if (agent.needsEnrollment && inWindow.length > 0) {
      const key = randomToken(32);
      if (await repo.bindAgentKey(system.id, sha256(key))) agentKey = key;
    }

    const accepted = stored.filter(Boolean).length;
    const [settings, checks, update] = await Promise.all([
      effectiveSettings(system.id),
      agentChecks({ id: system.id, customerId: system.customerId }),
      updateOffer({
        id: system.id,
        customerId: system.customerId,
        clusterId: system.clusterId,
        agentVersion: info.version ?? system.agentVersion,
        arch: info.arch ?? system.arch,
      }),
    ]);
    return {
      accepted,
      duplicates: inWindow.length - accepted,
      skipped,
      ...(agentKey ? { agentKey } : {}),
      settings,
      settings_rev: revisionOf(settings, checks),
      ...(checks.length ? { checks } : {}),
      update,
    };
  }

  return {
    /** Refuses a request whose token did not verify (401, or 429 over the address's limit). */
    refuseToken(clientIp: string): Promise<never> {
      return refuse(clientIp, unauthorized());
    },

    /** Finds the agent's system and checks its agent key: a bound system without the right `ak` is 401. */
    async identify(claims: AgentClaims, clientIp: string): Promise<VerifiedAgent> {
      const system = await repo.findSystemByAgentId(claims.sub);
      if (!system?.agentKeyHash) return { claims, system, needsEnrollment: true };
      if (!claims.akHash || !equalDigests(claims.akHash, system.agentKeyHash)) return refuse(clientIp, unauthorized());
      return { claims, system, needsEnrollment: false };
    },

    ingest,
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
