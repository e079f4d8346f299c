/**
 * A check's state after a run (pure): UP, DEGRADED (answered, but slow or its certificate has
 * less than CERT_DEGRADED_DAYS left), DOWN after more than `retries` failed runs in a row. A
 * failure within the retries keeps the previous state; the check runs again at its retry interval.
 * And the series a run records: the state's (what the default rules read) and the measurements.
 */
import type { CheckResult } from '../../../contracts/checks.js';
import type { ProbeResult } from './probe.js';
import type { CheckRow, StoredRun } from './repo.js';

export const CERT_DEGRADED_DAYS = 14;

export interface CheckState {
  state: CheckRow['state'];
  stateSince: Date | null;
  failures: number;
}

export function nextState(previous: CheckState, result: ProbeResult, retries: number): CheckState {
  const failures = result.up ? 0 : previous.failures + 1;
  const degraded = result.slow || (result.certDaysLeft !== null && result.certDaysLeft < CERT_DEGRADED_DAYS);
  const state: CheckRow['state'] = result.up
    ? degraded
      ? 'DEGRADED'
      : 'UP'
    : failures > retries
      ? 'DOWN'
      : previous.state === 'PAUSED'
        ? 'PENDING'
        : previous.state;
  return { state, failures, stateSince: state === previous.state ? previous.stateSince : result.at };
}

export function resultJson(result: ProbeResult): CheckResult {
  return {
    at: result.at.toISOString(),
    up: result.up,
    reason: result.reason,
    responseMs: result.responseMs,
    status: result.status,
    keywordMatched: result.keywordMatched,
    certDaysLeft: result.certDaysLeft,
    certValid: result.certValid,
    packetLossPct: result.packetLossPct,
    slow: result.slow,
  };
}

/** The series that carry the state: written by every run, and again by a heartbeat between runs. */
function stateSeries(state: CheckState, last: CheckResult | null, certHost: string): [string, string, number][] {
  const series: [string, string, number][] = [
    ['check.down', '', state.state === 'DOWN' ? 1 : 0],
    ['check.slow', '', last?.slow ? 1 : 0],
  ];
  if (last?.certDaysLeft !== null && last?.certDaysLeft !== undefined)
    series.push(['cert.days_left', certHost, last.certDaysLeft]);
  return series;
}

const toRun = (id: number, time: Date, series: [string, string, number][]): Omit<StoredRun, 'state'> => ({
  id,
  time,
  names: series.map((s) => s[0]),
  instances: series.map((s) => s[1]),
  vals: series.map((s) => s[2]),
});

/** One run's row: the state series and what was measured. */
export function runRow(id: number, result: ProbeResult, state: CheckState, certHost: string): StoredRun {
  const last = resultJson(result);
  const series = stateSeries(state, last, certHost);
  series.push(['check.up', '', result.up ? 1 : 0]);
  if (result.responseMs !== null) series.push(['check.response_ms', '', result.responseMs]);
  if (result.status !== null) series.push(['check.status_code', '', result.status]);
  if (result.certValid !== null) series.push(['check.cert_valid', certHost, result.certValid ? 1 : 0]);
  if (result.packetLossPct !== null) series.push(['check.packet_loss_pct', '', result.packetLossPct]);
  return { ...toRun(id, result.at, series), state: { ...state, lastResult: last } };
}

/**
 * Between the runs of a check with a long interval: its state again, so the rules that read it
 * see a fresh sample (the evaluation trusts samples for 5 minutes) and the check is not silent.
 */
export function heartbeatRow(
  id: number,
  time: Date,
  state: CheckState,
  last: CheckResult | null,
  certHost: string,
): StoredRun {
  return toRun(id, time, stateSeries(state, last, certHost));
}
