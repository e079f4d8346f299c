/**
 * What features tell Argus's own Prometheus metrics (`GET /api/metrics`). Features get
 * these small interfaces at assembly (app.ts) and never import prom-client: backend/src/self-metrics/
 * turns the calls into counters and histograms. Tests that build a feature alone get the no-ops.
 */

/** What became of the reports (and their samples) of one agent request. */
export type ReportOutcome = 'accepted' | 'duplicate' | 'skipped' | 'refused';

export interface IngestMetrics {
  /** `reports` reports holding `samples` samples met `outcome`. */
  reports(outcome: ReportOutcome, reports: number, samples: number): void;
  /** One group-commit statement: the requests and samples it held, and its time in the database. */
  batch(requests: number, samples: number, seconds: number): void;
  /** A replayed batch answered 429 because the write path was deep (ingest/admission.ts). */
  replaySlowed(): void;
  /**
   * Where the samples handed to the group commit and not yet answered are read, and the depth above
   * which replays are slowed now, when scraped.
   */
  watchPending(read: () => number, limit: () => number): void;
}

/** partial: a failed run went on customer by customer and some customers failed. */
export type RunOutcome = 'succeeded' | 'partial' | 'failed';

export interface EvaluationMetrics {
  /** One evaluation run (a failed one raised and resolved nothing). */
  run(outcome: RunOutcome, seconds: number, alerts: { raised: number; resolved: number }): void;
}

export interface LiveMetrics {
  socketOpened(): void;
  socketClosed(): void;
  /** One frame handed to a socket (the ready frame, messages, snapshots, errors). */
  messageSent(): void;
}

export interface SelfMetrics {
  ingest: IngestMetrics;
  evaluation: EvaluationMetrics;
  live: LiveMetrics;
}

const nothing = () => undefined;

export const NO_INGEST_METRICS: IngestMetrics = {
  reports: nothing,
  batch: nothing,
  replaySlowed: nothing,
  watchPending: nothing,
};
export const NO_EVALUATION_METRICS: EvaluationMetrics = { run: nothing };
export const NO_LIVE_METRICS: LiveMetrics = { socketOpened: nothing, socketClosed: nothing, messageSent: nothing };
