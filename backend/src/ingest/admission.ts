/**
 * Admission of replayed batches (docs/limits.md "Rate limits"): after an outage every agent sends its buffer at
 * once. While the write path is deep, a batch that carries old reports (a replay) is answered 429
 * with a spread `Retry-After`, so the live reports of the fleet keep their latency; a batch of
 * fresh reports is never refused here. The agent keeps a refused batch and sends it again later
 * (docs/protocol.md "Answer to a report": nothing of a refused request is stored, so nothing is lost and
 * nothing is stored twice).
 *
 * Depth is counted here, not read from the group-commit writer: samples admitted and not yet
 * answered (awaiting their request's rate limit, queued, in a statement, or waiting for its commit),
 * each batch by the one reservation `check()` answers, held from the check until its write settles.
 * How deep is too deep follows the commit: above a floor, replays are admitted while what is
 * pending would be committed within `drainTargetMs` at the pace samples were committed lately
 * (pending ≈ pace × wait, so this admits while the write path's wait stays under the target), up to
 * a cap that bounds the memory.
 */
import type { Clock } from '../lib/clock.js';
import { TooMany } from '../lib/errors.js';

export interface AdmissionOptions {
  clock: Clock;
  /**
   * A batch whose oldest report is older than this is a replay (default 10 minutes). An agent's
   * token is refused when its clock is 5 minutes behind (exp = iat + 300), so a live report of any
   * agent that gets in is younger than this.
   */
  replayAgeMs?: number;
  /**
   * Samples admitted and not yet answered up to which replays are always admitted (default 40,000:
   * ~2.5 MiB of queued reports, ~50 ms of statements on a quiet 2-core machine).
   */
  maxPendingSamples?: number;
  /**
   * Above `maxPendingSamples`, a replay is still admitted while the pending samples would be committed
   * within this many ms at the pace samples were committed in the last 2 s (default 1,000). 0: the
   * floor alone decides, as a fixed threshold.
   */
  drainTargetMs?: number;
  /**
   * The most samples the pace admits pending (default 200,000: ~12 MiB of queued reports and their
   * bodies, ~0.25 s of statements on a quiet 2-core machine).
   */
  paceMaxPendingSamples?: number;
  /**
   * While deep, one replayed batch is still admitted every this many ms (default 500), so a fleet's
   * live reports alone cannot hold the replay back for ever when the database is slow.
   */
  replayGapMs?: number;
  /**
   * Samples pending above which even that turn waits (default 50,000). What is admitted must be
   * storable soon: while PostgreSQL is slow, a replay every 500 ms (up to 500 reports each) would
   * grow the queue, and the server's memory, without bound; and a replay waiting longer than the
   * agent's 20 s request timeout is sent again. 50,000 is ~8 s of commits at the slowest pace
   * measured (~100 reports a second while other work starved PostgreSQL).
   */
  turnMaxPendingSamples?: number;
  /**
   * `Retry-After` of a refused replay, seconds, within [min, max] (default 5–300): the refused replays
   * are given return times one after the other at the pace replays are being admitted (see
   * `returnTime`); past `max` the schedule is full and the wait is drawn from its upper half.
   */
  retryAfterSeconds?: { min: number; max: number };
  random?: () => number;
  /** Told of each refusal (Argus's own metrics). */
  onRefused?: () => void;
}

export interface Admission {
  /**
   * Throws TooMany for a replayed batch (its oldest report older than replayAgeMs) while the write path
   * is deep. An admitted batch's samples count as pending from here until its write settles
   * (`holdUntil`) or the request fails before the write (`release`): concurrent requests awaiting
   * their rate limit between this check and the write would otherwise all pass the same check.
   */
  check(reports: readonly { ms: number; values: { length: number } }[]): AdmissionReservation;
  /**
   * The same before the body is parsed (parsing and validating a replayed buffer of 60 reports costs
   * ~10 ms of CPU, which the refusal saves): reads the first report's `ts` from the JSON text. Agents
   * send their buffer oldest first, so a first report older than replayAgeMs marks a replay. Finds
   * nothing (other key order, whitespace): the exact check after validation decides.
   */
  checkBody(json: Buffer): void;
  /** Samples admitted and not yet answered (their write not settled). */
  pending(): number;
  /** Pending samples above which a replay is refused now (but in its turn): the floor, the commit's pace or its cap. */
  limit(): number;
  /** Replayed batches refused since start. */
  refused(): number;
}

/** An admitted batch's samples, held as pending until it ends one of two ways; only the first call counts. */
export interface AdmissionReservation {
  /** Whether the batch is a replay (its oldest report older than replayAgeMs): queued behind live reports. */
  replay: boolean;
  /** The batch was handed to the writer: held until `writing` settles, then counted towards the pace if committed. */
  holdUntil(writing: Promise<unknown>): void;
  /** The request failed before its write: the samples leave the count now. */
  release(): void;
}

export const DEFAULT_REPLAY_AGE_MS = 10 * 60_000;
/** Replays admitted over this long make the pace at which refused ones are asked back. */
const PACE_WINDOW_MS = 10_000;
/** Refused replays are asked back this much faster than replays were admitted, so the pace can grow. */
const PACE_PROBE = 1.5;
export const DEFAULT_MAX_PENDING_SAMPLES = 40_000;
export const DEFAULT_TURN_MAX_PENDING_SAMPLES = 50_000;
export const DEFAULT_PACE_MAX_PENDING_SAMPLES = 200_000;
export const DEFAULT_DRAIN_TARGET_MS = 1_000;
/** The commit's pace is the samples answered over this long. */
const DRAIN_WINDOW_MS = 2_000;
/** `"reports":[{"ts":"…"` as JSON.stringify writes it (both agents do). */
const FIRST_REPORT_TS = /"reports":\[\{"ts":"([^"\\]{1,40})"/;

/**
 * Amounts added over the last `windowMs`: their sum and when the oldest was added. An amount added
 * `windowMs` ago or earlier is gone. Times are added in order; the forgotten head is cut off the
 * array now and then, so each amount costs O(1).
 */
function timeWindow(windowMs: number) {
  const times: number[] = [];
  const amounts: number[] = [];
  let head = 0;
  let sum = 0;
  const forget = (now: number) => {
    while (head < times.length && (times[head] as number) <= now - windowMs) {
      sum -= amounts[head] as number;
      head += 1;
    }
    if (head > 1024 && head * 2 > times.length) {
      times.splice(0, head);
      amounts.splice(0, head);
      head = 0;
    }
  };
  return {
    add(now: number, amount = 1): void {
      times.push(now);
      amounts.push(amount);
      sum += amount;
      forget(now);
    },
    /** The sum of the amounts added within the window before `now`. */
    sum(now: number): number {
      forget(now);
      return sum;
    },
    /** When the oldest amount still within the window was added; `now` when there is none. */
    oldest(now: number): number {
      forget(now);
      return times[head] ?? now;
    },
  };
}

export function createAdmission(options: AdmissionOptions): Admission {
  const replayAgeMs = options.replayAgeMs ?? DEFAULT_REPLAY_AGE_MS;
  const maxPending = options.maxPendingSamples ?? DEFAULT_MAX_PENDING_SAMPLES;
  const { min, max } = options.retryAfterSeconds ?? { min: 5, max: 300 };
  const random = options.random ?? Math.random;
  const replayGapMs = options.replayGapMs ?? 500;
  const turnMaxPending = options.turnMaxPendingSamples ?? DEFAULT_TURN_MAX_PENDING_SAMPLES;
  const drainTargetMs = options.drainTargetMs ?? DEFAULT_DRAIN_TARGET_MS;
  const paceMax = options.paceMaxPendingSamples ?? DEFAULT_PACE_MAX_PENDING_SAMPLES;
  let pending = 0;
  /** Samples answered (committed) in the last DRAIN_WINDOW_MS. */
  const answered = timeWindow(DRAIN_WINDOW_MS);
  let refused = 0;
  // the first replay under pressure waits its gap like the next ones
  let replayAdmittedAt = options.clock.now().getTime();
  /** Replays admitted in the last PACE_WINDOW_MS. */
  const admitted = timeWindow(PACE_WINDOW_MS);
  /** The latest return time handed out to a refused replay. */
  let returnsUntil = 0;

  /**
   * A refused replay's wait, seconds: the next free return time, spaced by the pace at which replays
   * were admitted lately (at least the turn's), a little faster so the pace can grow. A fleet refused
   * at once comes back one after the other as the server takes it, not all within a fixed range
   * while the path may be idle (nor as a stream of refusals while it is full).
   */
  function returnTime(now: number): number {
    // over the time the window's admissions span (at least 1 s): at a surge's start the last 10 s
    // hold only its first second, and a pace over all 10 s would space a fleet's returns 10 × too far
    const spanMs = Math.min(PACE_WINDOW_MS, Math.max(1000, now - admitted.oldest(now)));
    const perSecond = Math.max(1000 / replayGapMs, admitted.sum(now) / (spanMs / 1000)) * PACE_PROBE;
    const spacingMs = 1000 / perSecond;
    const slot = Math.max(now + min * 1000, returnsUntil);
    // the schedule is full up to the cap: spread over its upper half, as a fixed range would
    const half = Math.max(min, max / 2);
    if (slot > now + max * 1000) return Math.round(half + random() * (max - half));
    returnsUntil = slot + spacingMs;
    return Math.min(max, Math.max(min, Math.ceil((slot + random() * spacingMs - now) / 1000)));
  }

  /**
   * Pending samples above which a replay waits for its turn: what the commit, at its pace of the last
   * 2 s, stores within drainTargetMs; never below the floor nor above the cap. The pace counts live
   * and replayed samples alike: while PostgreSQL keeps up the limit grows with what is admitted, when
   * it slows the pace drops and so does the limit.
   */
  function limitAt(now: number): number {
    const pace = answered.sum(now) / DRAIN_WINDOW_MS; // samples a ms
    return Math.max(maxPending, Math.min(paceMax, pace * drainTargetMs));
  }

  const oldestOf = (reports: readonly { ms: number }[]) => {
    let oldest = Infinity;
    for (const report of reports) oldest = Math.min(oldest, report.ms);
    return oldest;
  };

  /** Samples answered (committed): they leave the count and make the commit's pace. */
  function answer(samples: number, committed: boolean): void {
    pending -= samples;
    if (!committed) return; // a failed write does not count towards the pace
    answered.add(options.clock.now().getTime(), samples);
  }

  function reserve(reports: readonly { values: { length: number } }[], replay: boolean): AdmissionReservation {
    let held = 0;
    for (const report of reports) held += report.values.length;
    pending += held;
    let open = true; // neither handed to the writer nor released yet
    return {
      replay,
      holdUntil(writing) {
        if (!open) return;
        open = false;
        writing.then(
          () => answer(held, true),
          () => answer(held, false),
        );
      },
      release() {
        if (!open) return;
        open = false;
        answer(held, false);
      },
    };
  }

  /** `takeTurn`: the exact check takes the replay's turn; the early one only looks whether it is open. */
  function refuseIfOld(oldestMs: number, takeTurn: boolean): void {
    const now = options.clock.now().getTime();
    if (!(now - oldestMs > replayAgeMs)) return; // live: never refused here
    if (now - replayAdmittedAt >= replayGapMs && pending < turnMaxPending) {
      if (takeTurn) {
        replayAdmittedAt = now;
        admitted.add(now);
      }
      return;
    }
    refused += 1;
    options.onRefused?.();
    const wait = returnTime(now);
    throw new TooMany(wait, `The server is busy storing live reports: send these older reports again in ${wait} s`);
  }

  return {
    check(reports) {
      const now = options.clock.now().getTime();
      const oldest = oldestOf(reports);
      const replay = now - oldest > replayAgeMs;
      if (pending > limitAt(now)) refuseIfOld(oldest, true);
      else if (replay) admitted.add(now);
      return reserve(reports, replay);
    },
    checkBody(json) {
      if (pending <= limitAt(options.clock.now().getTime())) return;
      // in valid JSON a quote outside a string is never escaped, inside one always: this finds a key
      const ts = FIRST_REPORT_TS.exec(json.toString('utf8', 0, Math.min(json.length, 16_384)))?.[1];
      if (ts !== undefined) refuseIfOld(Date.parse(ts), false);
    },
    pending: () => pending,
    limit: () => limitAt(options.clock.now().getTime()),
    refused: () => refused,
  };
}
