/**
 * Group commit (architecture.md "Metrics path"): requests queue their rows; a
 * writer stores many requests' rows in ONE statement every few milliseconds (or
 * at once when a batch is big), and each request is answered only after the
 * commit that holds its rows — nothing acknowledged is lost.
 *
 * Requests are spread over a few lanes by system id, one statement in flight per
 * lane: a system's rows always go through the same lane, so two statements never
 * race on the same keys (no deadlocks, no out-of-order latest values). A report's
 * identity is (system, ts): within a batch the first copy wins, across batches
 * the unique index does.
 */
import type { Logger } from '../lib/logger.js';
import { retryTransient } from '../lib/transient.js';
import { Unavailable } from '../lib/errors.js';
import { emptyBatchArrays, type BatchArrays, type BatchResult, type IngestRepo } from './repo.js';
import type { ReportToStore, SystemTouch, WriteOutcome, WriteRequest } from './types.js';

export type { EventToStore, ReportToStore, SystemTouch, WriteOutcome, WriteRequest } from './types.js';

export interface WriterStats {
  /** Statements sent (one per batch, plus single retries after a failed batch). */
  statements: number;
  requests: number;
  rows: number;
  largestBatch: number;
  /** Time spent in statements, summed over lanes (ms). */
  statementMs: number;
}

export interface GroupCommitWriter {
  write(request: WriteRequest): Promise<WriteOutcome>;
  /** Stores everything queued now and waits for it. */
  flush(): Promise<void>;
  /** Refuses new writes, stores what is queued and waits for it (shutdown). */
  close(): Promise<void>;
  stats(): WriterStats;
}

interface Entry {
  request: WriteRequest;
  rows: number;
  replay: boolean;
  resolve(outcome: WriteOutcome): void;
  reject(error: unknown): void;
}

interface Lane {
  queue: Entry[];
  queuedRows: number;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
}

export interface GroupCommitOptions {
  repo: Pick<IngestRepo, 'storeBatch'>;
  log: Logger;
  /** How long the first queued request waits for company (default 4 ms). */
  windowMs?: number;
  /** A batch is sent at once when it holds this many samples (default 20,000). */
  maxBatchRows?: number;
  /**
   * Samples of replayed requests a statement takes besides its first replayed request (default
   * 5,000). Live requests are taken first; this keeps a statement, and so the wait of the live
   * reports queued behind it, short while an outage's buffers are replayed.
   */
  maxReplayRows?: number;
  /** Statements in flight at most (default 2). */
  lanes?: number;
  /** Told of every statement: its requests, samples and seconds (Argus's own metrics). */
  observe?: (requests: number, samples: number, seconds: number) => void;
}

/** Data errors of one request (a value PostgreSQL refuses) must not fail the others of its batch. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

export function createGroupCommitWriter(options: GroupCommitOptions): GroupCommitWriter {
  const windowMs = options.windowMs ?? 4;
  const maxBatchRows = options.maxBatchRows ?? 20_000;
  const maxReplayRows = options.maxReplayRows ?? 5_000;
  const lanes: Lane[] = Array.from({ length: Math.max(1, options.lanes ?? 2) }, () => ({
    queue: [],
    queuedRows: 0,
    timer: null,
    running: null,
  }));
  const stats: WriterStats = { statements: 0, requests: 0, rows: 0, largestBatch: 0, statementMs: 0 };
  let closed = false;

  function schedule(lane: Lane): void {
    if (lane.running || lane.queue.length === 0) return;
    if (lane.queuedRows >= maxBatchRows || closed) start(lane);
    else lane.timer ??= setTimeout(() => start(lane), windowMs);
  }

  function start(lane: Lane): void {
    if (lane.timer) clearTimeout(lane.timer);
    lane.timer = null;
    if (lane.running || lane.queue.length === 0) return;
    // live requests first, in arrival order; then replayed ones: the first always (so a replay
    // goes on however busy the lane), more while they stay under maxReplayRows. A system's
    // reports may so be stored out of order: every write is idempotent and the newest values
    // keep the newest sample whatever the order (system_latest_merge).
    const batch: Entry[] = [];
    const rest: Entry[] = [];
    let rows = 0;
    let replayRows = 0;
    for (const entry of lane.queue) {
      if (entry.replay) continue;
      if (batch.length === 0 || rows + entry.rows <= maxBatchRows) {
        batch.push(entry);
        rows += entry.rows;
      } else rest.push(entry);
    }
    for (const entry of lane.queue) {
      if (!entry.replay) continue;
      const first = replayRows === 0;
      if (first || (replayRows + entry.rows <= maxReplayRows && rows + entry.rows <= maxBatchRows)) {
        batch.push(entry);
        rows += entry.rows;
        replayRows += entry.rows;
      } else rest.push(entry);
    }
    lane.queue = rest;
    lane.queuedRows -= rows;
    lane.running = run(batch).finally(() => {
      lane.running = null;
      // whatever queued during this statement has waited long enough: send it now
      if (lane.queue.length) start(lane);
    });
  }

  async function run(batch: Entry[]): Promise<void> {
    try {
      settle(batch, await retryTransient(() => store(batch)));
    } catch (error) {
      if (batch.length > 1 && isDataError(error)) {
        options.log.warn(
          { err: error, requests: batch.length },
          'Group commit refused: storing its requests one by one',
        );
        for (const entry of batch) {
          try {
            settle([entry], await store([entry]));
          } catch (single) {
            entry.reject(single);
          }
        }
      } else {
        for (const entry of batch) entry.reject(error);
      }
    }
  }

  async function store(batch: Entry[]): Promise<{ owners: Map<string, ReportToStore>; result: BatchResult }> {
    const arrays: BatchArrays = emptyBatchArrays(new Date(0));
    const owners = new Map<string, ReportToStore>();
    const touches = new Map<number, SystemTouch>();
    for (const entry of batch) {
      const { systemId, reports, touch } = entry.request;
      touches.set(systemId, touch);
      if (touch.seenAt > arrays.receivedAt) arrays.receivedAt = touch.seenAt;
      for (const report of reports) {
        const key = `${systemId}:${report.ms}`;
        if (owners.has(key)) continue; // the same report twice in this batch: the first copy counts
        owners.set(key, report);
        if (report.values.length) {
          // the series' newest samples go to system_latest: the statement picks them (repo.ts)
          arrays.reports.systemId.push(systemId);
          arrays.reports.ms.push(report.ms);
          arrays.reports.sets.push(report.set);
          for (const value of report.values) arrays.values.push(value);
        }
        for (const event of report.events) {
          arrays.events.systemId.push(systemId);
          arrays.events.ms.push(report.ms);
          arrays.events.type.push(event.type);
          arrays.events.severity.push(event.severity);
          arrays.events.message.push(event.message);
        }
      }
    }
    for (const [id, touch] of touches) {
      const s = arrays.systems;
      s.id.push(id);
      s.seenMs.push(touch.seenAt.getTime());
      s.version.push(touch.version);
      s.hostname.push(touch.hostname);
      s.os.push(touch.os);
      s.kernel.push(touch.kernel);
      s.arch.push(touch.arch);
      s.cores.push(touch.cores);
    }
    stats.statements += 1;
    const started = performance.now();
    const result = await options.repo.storeBatch(arrays).finally(() => {
      const ms = performance.now() - started;
      stats.statementMs += ms;
      options.observe?.(batch.length, arrays.values.length, ms / 1000);
    });
    stats.requests += batch.length;
    stats.rows += arrays.values.length;
    stats.largestBatch = Math.max(stats.largestBatch, batch.length);
    return { owners, result };
  }

  function settle(
    batch: Entry[],
    { owners, result }: { owners: Map<string, ReportToStore>; result: BatchResult },
  ): void {
    const inserted = new Set(result.inserted.map((row) => `${row.systemId}:${row.ms}`));
    const changes = new Map(result.statusChanges.map((change) => [change.id, change]));
    for (const entry of batch) {
      const { systemId, reports } = entry.request;
      const stored = reports.map((report) => {
        const key = `${systemId}:${report.ms}`;
        // a report without samples is stored when it is the first copy (its events, if any, are)
        return owners.get(key) === report && (report.values.length === 0 || inserted.has(key));
      });
      const change = changes.get(systemId);
      // the status change is told once, to the first request of its system in the batch
      if (change) changes.delete(systemId);
      entry.resolve({ stored, statusChange: change ? { from: change.from, to: change.to } : null });
    }
  }

  return {
    write(request) {
      if (closed) return Promise.reject(new Unavailable('Shutting down: try again shortly'));
      return new Promise<WriteOutcome>((resolve, reject) => {
        const rows = request.reports.reduce((sum, report) => sum + report.values.length, 0);
        const lane = lanes[request.systemId % lanes.length] as Lane;
        lane.queue.push({ request, rows, replay: request.replay ?? false, resolve, reject });
        lane.queuedRows += rows;
        schedule(lane);
      });
    },
    async flush() {
      for (;;) {
        for (const lane of lanes) if (!lane.running) start(lane);
        const running = lanes.map((lane) => lane.running).filter((p): p is Promise<void> => p !== null);
        if (running.length === 0 && lanes.every((lane) => lane.queue.length === 0)) return;
        await Promise.all(running);
      }
    },
    async close() {
      closed = true;
      await this.flush();
    },
    stats: () => ({ ...stats }),
  };
}
