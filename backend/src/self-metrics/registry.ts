/**
 * Argus's own metrics, in a prom-client Registry of this app's own: never the
 * global default registry, so two apps in one process (tests) count apart. Features are handed the
 * small interfaces of lib/self-metrics.ts; what is a level rather than an event (database pool,
 * outboxes) is read when Prometheus scrapes.
 */
import type { Knex } from 'knex';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../lib/logger.js';
import type {
  EvaluationMetrics,
  IngestMetrics,
  LiveMetrics,
  ReportOutcome,
  RunOutcome,
  SelfMetrics,
} from '../lib/self-metrics.js';
import { createSelfMetricsRepo } from './repo.js';

const REPORT_OUTCOMES: readonly ReportOutcome[] = ['accepted', 'duplicate', 'skipped', 'refused'];
const RUN_OUTCOMES: readonly RunOutcome[] = ['succeeded', 'partial', 'failed'];

export interface SelfMetricsRegistry extends SelfMetrics {
  registry: Registry;
  /** One answered HTTP request; `route` is the matched router path or `unmatched` (bounded labels). */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** The exposition text (`registry.contentType`): collectors that read the database run now. */
  scrape(): Promise<string>;
}

/** What a tarn pool (knex's) tells about itself; absent once the pool is destroyed. */
interface PoolLike {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max: number;
}

function poolOf(db: Knex): PoolLike | undefined {
  return (db.client as { pool?: PoolLike }).pool;
}

/** Agent reports and samples by outcome, the group commit's statements, replays slowed, samples pending. */
function ingestMetrics(registers: Registry[]): IngestMetrics {
  const reports = new Counter({
    name: 'argus_ingest_reports_total',
    help: 'Agent reports by outcome: accepted, duplicate (already stored), skipped (outside the time window), refused.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const samples = new Counter({
    name: 'argus_ingest_samples_total',
    help: 'Samples in agent reports, by the outcome of their report.',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of REPORT_OUTCOMES) {
    reports.inc({ outcome }, 0);
    samples.inc({ outcome }, 0);
  }
  const batchRequests = new Histogram({
    name: 'argus_ingest_batch_requests',
    help: 'Agent requests stored by one group-commit statement.',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    registers,
  });
  const batchSamples = new Histogram({
    name: 'argus_ingest_batch_samples',
    help: 'Samples stored by one group-commit statement.',
    buckets: [10, 100, 500, 1000, 2500, 5000, 10000, 20000, 50000],
    registers,
  });
  const statementSeconds = new Histogram({
    name: 'argus_ingest_statement_seconds',
    help: 'Time of one group-commit statement in the database.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });

  const replaysSlowed = new Counter({
    name: 'argus_ingest_replays_slowed_total',
    help: 'Replayed agent batches answered 429 with Retry-After because the write path was deep.',
    registers,
  });
  let readPending = () => 0;
  let readLimit = () => 0;
  new Gauge({
    name: 'argus_ingest_pending_samples',
    help: 'Samples handed to the group commit and not yet answered (replays are slowed above argus_ingest_pending_limit_samples).',
    registers,
    collect() {
      this.set(readPending());
    },
  });
  new Gauge({
    name: 'argus_ingest_pending_limit_samples',
    help: "Pending samples above which replayed batches are slowed now: what the commit's recent pace stores in the drain target, between the admission's floor and cap.",
    registers,
    collect() {
      this.set(readLimit());
    },
  });

  return {
    reports(outcome, reportCount, sampleCount) {
      if (reportCount > 0) reports.inc({ outcome }, reportCount);
      if (sampleCount > 0) samples.inc({ outcome }, sampleCount);
    },
    batch(requests, sampleCount, seconds) {
      batchRequests.observe(requests);
      batchSamples.observe(sampleCount);
      statementSeconds.observe(seconds);
    },
    replaySlowed: () => replaysSlowed.inc(),
    watchPending(read, limit) {
      readPending = read;
      readLimit = limit;
    },
  };
}

/** Evaluation runs by outcome and duration, alerts raised and resolved. */
function evaluationMetrics(registers: Registry[]): EvaluationMetrics {
  const runs = new Counter({
    name: 'argus_evaluation_runs_total',
    help: 'Evaluation runs by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of RUN_OUTCOMES) runs.inc({ outcome }, 0);
  const runSeconds = new Histogram({
    name: 'argus_evaluation_run_duration_seconds',
    help: 'Time of one evaluation run (waiting for an earlier run of this process excluded).',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const alertsRaised = new Counter({ name: 'argus_alerts_raised_total', help: 'Alerts raised.', registers });
  const alertsResolved = new Counter({ name: 'argus_alerts_resolved_total', help: 'Alerts resolved.', registers });

  return {
    run(outcome, seconds, alerts) {
      runs.inc({ outcome });
      runSeconds.observe(seconds);
      if (alerts.raised > 0) alertsRaised.inc(alerts.raised);
      if (alerts.resolved > 0) alertsResolved.inc(alerts.resolved);
    },
  };
}

/** Open live WebSocket connections and the frames sent to them. */
function liveMetrics(registers: Registry[]): LiveMetrics {
  const sockets = new Gauge({ name: 'argus_live_sockets', help: 'Open live WebSocket connections.', registers });
  const messages = new Counter({
    name: 'argus_live_messages_sent_total',
    help: 'Frames sent to live WebSocket connections.',
    registers,
  });

  return {
    socketOpened: () => sockets.inc(),
    socketClosed: () => sockets.dec(),
    messageSent: () => messages.inc(),
  };
}

/** Levels read when Prometheus scrapes: the outboxes' depth and the database pool. */
function databaseGauges(db: Knex, log: Logger, registers: Registry[]): void {
  const repo = createSelfMetricsRepo(db);
  new Gauge({
    name: 'argus_outbox_pending',
    help: 'Notifications waiting to be sent: channel deliveries and account e-mails. Absent when the database did not answer.',
    labelNames: ['outbox'] as const,
    registers,
    async collect() {
      this.reset();
      try {
        const depth = await repo.outboxDepth();
        this.set({ outbox: 'channel_deliveries' }, depth.channelDeliveries);
        this.set({ outbox: 'account_emails' }, depth.accountEmails);
      } catch (error) {
        log.warn({ err: error }, 'Self-metrics: could not count the outboxes');
      }
    },
  });
  const poolGauge = (name: string, help: string, read: (pool: PoolLike) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const pool = poolOf(db);
        this.set(pool ? read(pool) : 0);
      },
    });
  poolGauge('argus_db_pool_used', 'Database connections in use.', (pool) => pool.numUsed());
  poolGauge('argus_db_pool_free', 'Idle database connections in the pool.', (pool) => pool.numFree());
  poolGauge('argus_db_pool_pending', 'Requests waiting for a database connection.', (pool) =>
    pool.numPendingAcquires(),
  );
  poolGauge('argus_db_pool_max', 'Most database connections the pool opens (DATABASE_POOL_MAX).', (pool) => pool.max);
}

export function createSelfMetrics({ db, log }: { db: Knex; log: Logger }): SelfMetricsRegistry {
  const registry = new Registry();
  const registers = [registry];
  // process memory, CPU, handles, GC and event-loop delay (monitorEventLoopDelay), unprefixed as usual
  collectDefaultMetrics({ register: registry });

  const httpRequests = new Counter({
    name: 'argus_http_requests_total',
    help: 'HTTP requests answered, by method, matched route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'argus_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to its answer, by method and matched route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });

  // registered in this order, so a scrape lists them so
  const ingest = ingestMetrics(registers);
  const evaluation = evaluationMetrics(registers);
  const live = liveMetrics(registers);
  databaseGauges(db, log, registers);

  return {
    registry,
    httpRequest(method, route, status, seconds) {
      httpRequests.inc({ method, route, status: String(status) });
      httpDuration.observe({ method, route }, seconds);
    },
    scrape: () => registry.metrics(),
    ingest,
    evaluation,
    live,
  };
}
