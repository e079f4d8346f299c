/**
 * Where every result of a check is recorded, from the server's runner and from the agents' reports
 * alike: in one transaction, with the checks locked, each location's state moves on (a result not
 * newer than the location's last one is a replay: ignored), the check's state is decided from its
 * locations (state.ts: the quorum), and the runs are stored as the check's rows; the check's own
 * row is written only when its state changed (results-repo.ts: three statements a batch). A
 * heartbeat decides the state again without a result: a location gone quiet stops counting.
 */
import type { CheckResult } from '../../../contracts/checks.js';
import type { ProbeResult } from '../../../probes/probe.js';
import type { Clock } from '../lib/clock.js';
import type { CheckRow, ChecksRepo, LocationRow, StoredRun } from './repo.js';
import { combinedState, heartbeatRow, nextState, resultJson, runRow, type CheckState } from './state.js';

/** One run of a check from one location. */
export interface LocationRun {
  checkId: number;
  location: string;
  result: ProbeResult;
}

/** Who sent the runs: an agent may record only the checks of its customer assigned to it. */
export interface RunSource {
  location: string;
  customerId: number | null;
}

/** The host a check's certificate series is named by (its URL's host). */
export const certHost = (check: Pick<CheckRow, 'settings'>): string =>
  check.settings['type'] === 'http' ? new URL(check.settings['url'] as string).hostname : '';

const slowFor = (check: CheckRow, result: ProbeResult): boolean =>
  result.up && check.maxResponseMs !== null && (result.responseMs ?? 0) > check.maxResponseMs;

const PENDING = (checkId: number, location: string): LocationRow => ({
  checkId,
  location,
  state: 'PENDING',
  stateSince: null,
  failures: 0,
  lastResult: null,
  at: new Date(0),
});

const sameState = (a: CheckState, b: CheckState): boolean =>
  a.state === b.state && a.failures === b.failures && a.stateSince?.getTime() === b.stateSince?.getTime();

/**
 * The rows as stored, each carrying the check's state only where it differs from the state before
 * it: a run that changes nothing of the check writes no row of `checks` (its place's row and the
 * check's series carry the run).
 */
function withStateOnlyWhereChanged(rows: StoredRun[], was: Map<number, CheckState>): StoredRun[] {
  const current = new Map(was);
  return rows.map((row) => {
    const before = current.get(row.id);
    if (!row.state || (before && sameState(before, row.state))) return { ...row, state: undefined };
    current.set(row.id, row.state);
    return row;
  });
}

export function createCheckResults(deps: {
  repo: ChecksRepo;
  clock: Clock;
  /** Told after the runs that changed these checks' state are stored (the consoles follow it live). */
  stateChanged?(ids: number[]): void;
  /** Told of every row stored (runs and heartbeats), once committed: an open check page draws it. */
  stored?(rows: StoredRun[]): void;
}) {
  const { repo, clock } = deps;

  function accepts(check: CheckRow | undefined, run: LocationRun, source: RunSource): check is CheckRow {
    if (!check?.enabled || !check.locations.includes(run.location) || run.location !== source.location) return false;
    return source.customerId === null || check.customerId === source.customerId;
  }

  /** The runs' rows and the places that moved on; each run is a quorum decision of its check. */
  function decideRuns(
    checks: Map<number, CheckRow>,
    places: Map<number, Map<string, LocationRow>>,
    runs: LocationRun[],
    source: RunSource,
    nowMs: number,
  ) {
    const stored: StoredRun[] = [];
    const moved: LocationRow[] = [];
    for (const run of [...runs].sort((a, b) => a.result.at.getTime() - b.result.at.getTime())) {
      const check = checks.get(run.checkId);
      if (!accepts(check, run, source)) continue;
      const placesOfCheck = places.get(check.id) ?? new Map<string, LocationRow>();
      places.set(check.id, placesOfCheck);
      const before = placesOfCheck.get(run.location) ?? PENDING(check.id, run.location);
      if (before.at.getTime() >= run.result.at.getTime()) continue;
      // the check's limit as it is now, whoever measured the time
      const result = { ...run.result, slow: slowFor(check, run.result) };
      const after = nextState(before, result, check.retries);
      const place: LocationRow = {
        checkId: check.id,
        location: run.location,
        state: after.state as LocationRow['state'],
        stateSince: after.stateSince,
        failures: after.failures,
        lastResult: resultJson(result),
        at: result.at,
      };
      placesOfCheck.set(run.location, place);
      moved.push(place);
      const state = combinedState(check, placesOfCheck, nowMs, result.at);
      stored.push(runRow(check.id, run.location, result, state, certHost(check)));
      Object.assign(check, state, { lastResult: place.lastResult });
    }
    return { stored, moved };
  }

  /** A heartbeat repeats the newest result measured (the one the check answers as its last). */
  function newestResult(check: CheckRow, places: Map<string, LocationRow> | undefined): CheckResult | null {
    let newest: LocationRow | null = null;
    for (const place of places?.values() ?? []) if (!newest || place.at > newest.at) newest = place;
    return newest?.lastResult ?? (check.lastResult as CheckResult | null);
  }

  /** Records runs (each from `source`) and heartbeats of `heartbeats` (check ids). */
  async function record(source: RunSource, runs: LocationRun[], heartbeats: number[] = []): Promise<void> {
    const ids = [...new Set([...runs.map((r) => r.checkId), ...heartbeats])];
    if (!ids.length) return;
    const turned: number[] = [];
    const { runs: committed } = await repo.recordResults(ids, heartbeats, (rows, placeRows) => {
      const checks = new Map(rows.map((c) => [c.id, c]));
      const was = new Map(rows.map((c): [number, CheckState] => [c.id, { ...c }]));
      const places = new Map<number, Map<string, LocationRow>>();
      for (const row of placeRows) {
        if (!places.has(row.checkId)) places.set(row.checkId, new Map());
        places.get(row.checkId)?.set(row.location, row);
      }
      const nowMs = clock.now().getTime();
      const { stored, moved } = decideRuns(checks, places, runs, source, nowMs);
      const ran = new Set(stored.map((s) => s.id));
      for (const id of heartbeats) {
        const check = checks.get(id);
        if (!check?.enabled || ran.has(id)) continue;
        const state = combinedState(check, places.get(id) ?? new Map(), nowMs, new Date(nowMs));
        if (state.state === 'PENDING' || state.state === 'PAUSED') continue;
        stored.push(heartbeatRow(id, new Date(nowMs), state, newestResult(check, places.get(id)), certHost(check)));
        check.state = state.state;
      }
      for (const check of checks.values()) if (check.state !== was.get(check.id)?.state) turned.push(check.id);
      return { places: moved, runs: withStateOnlyWhereChanged(stored, was) };
    });
    if (turned.length) deps.stateChanged?.(turned);
    if (committed.length) deps.stored?.(committed);
  }

  return {
    record,
    /** The runs of the server's own runner. */
    recordServerRuns: (runs: LocationRun[], heartbeats: number[]) =>
      record({ location: 'argus', customerId: null }, runs, heartbeats),
    /** The runs an agent sent with its reports: only checks of its customer assigned to it count. */
    recordAgentRuns: (systemId: number, customerId: number, runs: Omit<LocationRun, 'location'>[]) => {
      const location = `system:${systemId}`;
      return record(
        { location, customerId },
        runs.map((r) => ({ ...r, location })),
      );
    },
  };
}

export type CheckResults = ReturnType<typeof createCheckResults>;
