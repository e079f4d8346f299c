/**
 * A check's state (pure). Each location has its own: UP, DEGRADED (answered, but slow or its
 * certificate has less than CERT_DEGRADED_DAYS left), DOWN after more than `retries` failed runs in
 * a row; a failure within the retries keeps the previous state, and the place runs the check again
 * at its retry interval. The check's state is decided from the locations' (the quorum): DOWN when
 * at least `quorum` of them see it down, else DEGRADED when one sees it so, else UP. A location
 * without a result for a while (an agent away) does not count either way.
 * And the series a run records: the check's state (what the default rules read), and the
 * measurements of the place it ran from (instance: the location).
 */
import { defaultQuorum, type CheckResult } from '../../../contracts/checks.js';
import type { LiveReport } from '../../../contracts/live.js';
import type { ProbeResult } from '../../../probes/probe.js';
import type { CheckRow, LocationRow, StoredRun } from './repo.js';

export const CERT_DEGRADED_DAYS = 14;
/** A location whose newest result is older than this many intervals (and 3 minutes) no longer counts. */
export const STALE_INTERVALS = 3;
const STALE_FLOOR_MS = 3 * 60_000;

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

export const isStale = (location: Pick<LocationRow, 'at'>, intervalS: number, nowMs: number): boolean =>
  nowMs - location.at.getTime() > Math.max(STALE_INTERVALS * intervalS * 1000, STALE_FLOOR_MS);

export const quorumOf = (check: Pick<CheckRow, 'quorum' | 'locations'>): number =>
  Math.min(check.quorum ?? defaultQuorum(check.locations.length), check.locations.length);

/**
 * The check's state from its locations' (those it is set to run from, with a fresh result). No
 * verdict (nothing fresh, or only places that see it down, too few to be DOWN): it stays as it was.
 */
export function combinedState(
  check: Pick<CheckRow, 'quorum' | 'locations' | 'intervalS' | 'state' | 'stateSince'>,
  locations: Map<string, LocationRow>,
  nowMs: number,
  at: Date,
): CheckState {
  const fresh = check.locations
    .map((name) => locations.get(name))
    .filter((l): l is LocationRow => !!l && l.state !== 'PENDING' && !isStale(l, check.intervalS, nowMs));
  const down = fresh.filter((l) => l.state === 'DOWN').length;
  const failures = Math.max(0, ...fresh.map((l) => l.failures));
  const seeing = fresh.filter((l) => l.state !== 'DOWN');
  const state: CheckRow['state'] =
    down >= quorumOf(check)
      ? 'DOWN'
      : seeing.some((l) => l.state === 'DEGRADED')
        ? 'DEGRADED'
        : seeing.length
          ? 'UP'
          : check.state === 'PAUSED'
            ? 'PENDING'
            : check.state;
  return { state, failures, stateSince: state === check.state ? check.stateSince : at };
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

/** One run's row: the check's state series and what the location measured. */
export function runRow(
  id: number,
  location: string,
  result: ProbeResult,
  state: CheckState,
  certHost: string,
): StoredRun {
  const last = resultJson(result);
  const series = stateSeries(state, last, certHost);
  series.push(['check.up', location, result.up ? 1 : 0]);
  if (result.responseMs !== null) series.push(['check.response_ms', location, result.responseMs]);
  if (result.status !== null) series.push(['check.status_code', location, result.status]);
  if (result.certValid !== null) series.push(['check.cert_valid', certHost, result.certValid ? 1 : 0]);
  if (result.packetLossPct !== null) series.push(['check.packet_loss_pct', location, result.packetLossPct]);
  return { ...toRun(id, result.at, series), state: { ...state, lastResult: last } };
}

/**
 * Between the runs of a check with a long interval (or from agents only): its state again, so the
 * rules that read it see a fresh sample (the evaluation trusts samples for 5 minutes) and the check
 * is not silent.
 */
export function heartbeatRow(
  id: number,
  time: Date,
  state: CheckState,
  last: CheckResult | null,
  certHost: string,
): StoredRun {
  return { ...toRun(id, time, stateSeries(state, last, certHost)), state: { ...state, lastResult: last } };
}

/** A stored row as the live channel carries a system's report (`system:<id>`): what an open check page draws. */
export const liveReportOf = (run: StoredRun): LiveReport => ({
  ts: run.time.toISOString(),
  metrics: run.names.map((name, i) => ({ name, instance: run.instances[i] ?? '', value: run.vals[i] ?? 0 })),
});
