/**
 * Admission of replayed batches through the real webhook, PostgreSQL and Redis:
 * while the write path is deep a replayed buffer is answered 429 with Retry-After and stores
 * nothing; a live report is accepted meanwhile; the replay sent again later is stored once.
 * The depth is made by a long group-commit window (a live write waits in its lane for a second);
 * the clock is fake, so the turn a replay gets every 500 ms while deep comes only when moved.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import knex from 'knex';
import { startIngestHarness, type IngestHarness } from '../testing/ingest-harness.js';
import { createSelfMetrics } from '../self-metrics/registry.js';
import { createLogger } from '../lib/logger.js';
import { FakeClock } from '../lib/clock.js';
import { TooMany } from '../lib/errors.js';
import { createAdmission, type Admission } from './admission.js';

const until = async (what: string, check: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

type Agent = Awaited<ReturnType<IngestHarness['boundAgent']>>;

/** 30 minutes of buffered reports, every 30 s, oldest first, 5 samples each (offset: another agent's times). */
const replayBuffer = (h: IngestHarness, agentOffset: number) =>
  Array.from({ length: 60 }, (_, i) => h.report(-30 * 60_000 + i * 30_000 + agentOffset, 5));

/** `busy` makes the path deep (150 samples waiting for the 1 s window); `first`'s replay then gets its turn. */
async function deepWithOneReplay(h: IngestHarness, busy: Agent, first: Agent) {
  const deep = h.post({ reports: [h.report(0, 150)] }, { token: await busy.token() });
  await until('the write path to be deep', () => h.feature.admission.pending() > 100);
  h.clock.advance(500);
  const admitted = h.post({ reports: replayBuffer(h, 0) }, { token: await first.token() });
  await until('the replay to be admitted', () => h.feature.admission.pending() >= 150 + 60 * 5);
  return { deep, admitted };
}

describe('POST /api/webhook/metrics: replayed batches while the write path is deep', () => {
  let h: IngestHarness;
  // Argus's own metrics (their database gauges are not read here: a client that never connects)
  const selfMetrics = createSelfMetrics({ db: knex({ client: 'pg' }), log: createLogger({ level: 'silent' }) });
  const metric = async (name: string) => (await selfMetrics.registry.getSingleMetric(name)?.get())?.values[0]?.value;
  before(async () => {
    h = await startIngestHarness({
      metrics: selfMetrics.ingest,
      groupCommit: { windowMs: 1000 },
      // the floor alone (no pace): these tests make the path deep by hand
      admission: { maxPendingSamples: 100, drainTargetMs: 0, retryAfterSeconds: { min: 20, max: 20 } },
    });
  });
  after(() => h.close());

  it('answers a replay 429 with Retry-After and stores nothing, accepts live reports, stores the replay once later', async () => {
    const [busy, replaying, live] = [await h.boundAgent(), await h.boundAgent(), await h.boundAgent()];
    // 30 minutes of buffered reports, every 30 s, oldest first, 5 samples each
    const buffer = Array.from({ length: 60 }, (_, i) => h.report(-30 * 60_000 + i * 30_000, 5));

    const deep = h.post({ reports: [h.report(0, 150)] }, { token: await busy.token() });
    await until('the write path to be deep', () => h.feature.admission.pending() > 100);
    assert.equal(await metric('argus_ingest_pending_samples'), 150, 'the pending samples, read when scraped');

    const refused = await h.post({ reports: buffer }, { token: await replaying.token(), gzip: true });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.headers['retry-after'], '20');
    assert.match(refused.body.error, /busy storing live reports: send these older reports again in 20 s/);
    assert.equal(await h.metricCount(replaying.systemId), 0, 'nothing of the refused replay is stored');
    // not oldest first: the check after validation finds the old report all the same
    const unordered = await h.post({ reports: [h.report(-1000), ...buffer] }, { token: await replaying.token() });
    assert.equal(unordered.status, 429, unordered.text);
    assert.equal(await h.metricCount(replaying.systemId), 0);

    // a live report while the path is deep: accepted (it waits for its commit like any other)
    const accepted = await h.post({ reports: [h.report(-2000, 4)] }, { token: await live.token() });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.accepted, 1);
    assert.equal((await deep).status, 200);
    assert.equal(h.feature.admission.pending(), 0, 'answered writes leave the count');

    // later, the same buffer: stored; and once more (its answer lost): a duplicate, stored once
    const retried = await h.post({ reports: buffer }, { token: await replaying.token(), gzip: true });
    assert.equal(retried.status, 200, retried.text);
    assert.deepEqual([retried.body.accepted, retried.body.duplicates], [60, 0]);
    const again = await h.post({ reports: buffer }, { token: await replaying.token() });
    assert.deepEqual([again.status, again.body.accepted, again.body.duplicates], [200, 0, 60]);
    assert.equal(await h.metricCount(replaying.systemId), 60 * 5);
    assert.equal(h.feature.admission.refused(), 2);
    assert.equal(await metric('argus_ingest_replays_slowed_total'), 2);
    assert.equal(await metric('argus_ingest_pending_samples'), 0);
  });

  it('still admits one replay every 500 ms while deep, so live traffic alone cannot hold the replay back', async () => {
    const [busy, first, second] = [await h.boundAgent(), await h.boundAgent(), await h.boundAgent()];
    const { deep, admitted } = await deepWithOneReplay(h, busy, first);
    const refused = await h.post({ reports: replayBuffer(h, 7) }, { token: await second.token() });
    assert.equal(refused.status, 429, 'the next replay waits for its turn');
    assert.deepEqual([(await admitted).status, (await admitted).body.accepted], [200, 60]);
    assert.equal((await deep).status, 200);
  });

  it('never refuses a batch whose oldest report is younger than the replay age, however deep the path', async () => {
    const [busy, recent] = [await h.boundAgent(), await h.boundAgent()];
    const deep = h.post({ reports: [h.report(0, 150)] }, { token: await busy.token() });
    await until('the write path to be deep', () => h.feature.admission.pending() > 100);
    // a short hiccup's backlog (9 minutes) is not a replay
    const backlog = Array.from({ length: 18 }, (_, i) => h.report(-9 * 60_000 + i * 30_000, 3));
    const reply = await h.post({ reports: backlog }, { token: await recent.token() });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.accepted, 18);
    assert.equal((await deep).status, 200);
  });
});

describe('POST /api/webhook/metrics: the replay turn waits while too much is pending', () => {
  let h: IngestHarness;
  before(async () => {
    h = await startIngestHarness({
      groupCommit: { windowMs: 1000 },
      admission: {
        maxPendingSamples: 100,
        drainTargetMs: 0,
        turnMaxPendingSamples: 400,
        retryAfterSeconds: { min: 20, max: 20 },
      },
    });
  });
  after(() => h.close());

  it('refuses a replay in its turn above the cap, still accepts live reports, admits the turn again once drained', async () => {
    const [busy, first, second, live] = [
      await h.boundAgent(),
      await h.boundAgent(),
      await h.boundAgent(),
      await h.boundAgent(),
    ];
    const { deep, admitted } = await deepWithOneReplay(h, busy, first);

    // the turn is open again, but 450 samples wait: above the cap of 400
    h.clock.advance(500);
    const refused = await h.post({ reports: replayBuffer(h, 7) }, { token: await second.token() });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(await h.metricCount(second.systemId), 0, 'nothing of the refused replay is stored');
    const accepted = await h.post({ reports: [h.report(-2000, 4)] }, { token: await live.token() });
    assert.equal(accepted.status, 200, 'live reports are never refused');

    assert.deepEqual([(await admitted).status, (await deep).status], [200, 200]);
    assert.equal(h.feature.admission.pending(), 0);
    const retried = await h.post({ reports: replayBuffer(h, 7) }, { token: await second.token() });
    assert.deepEqual([retried.status, retried.body.accepted], [200, 60]);
  });
});

describe('POST /api/webhook/metrics: a batch refused after its admission leaves nothing pending', () => {
  let h: IngestHarness;
  before(async () => {
    h = await startIngestHarness({ reportsPerSystemPerMinute: 10 });
  });
  after(() => h.close());

  it('releases the samples of a batch the report limit refuses between the check and the write', async () => {
    const agent = await h.boundAgent();
    const reports = (count: number) => Array.from({ length: count }, (_, i) => h.report(-i * 1000, 5));
    assert.equal((await h.post({ reports: reports(10) }, { token: await agent.token() })).status, 200);
    const refused = await h.post({ reports: reports(3) }, { token: await agent.token() });
    assert.equal(refused.status, 429, refused.text);
    assert.match(refused.body.error, /Too many reports for this system/);
    assert.equal(h.feature.admission.pending(), 0);
  });
});

describe('admission: a replay is what the group commit queues behind live reports', () => {
  it('is a replay when the oldest report is older than replayAgeMs, whatever the newest', () => {
    const clock = new FakeClock(new Date('2026-11-26T12:00:00Z'));
    const admission = createAdmission({ clock, replayAgeMs: 10 * 60_000 });
    const now = clock.now().getTime();
    const isReplay = (times: number[]) => admission.check(times.map((ms) => ({ ms, values: [] }))).replay;
    assert.equal(isReplay([now - 30_000, now]), false);
    assert.equal(isReplay([now - 10 * 60_000]), false, 'exactly the age: live');
    assert.equal(isReplay([now - 10 * 60_000 - 1, now]), true);
  });
});

/** The Retry-After, seconds, of a replay (30 minutes old) checked now; null when it is admitted. */
function replayWaitOf(admission: Admission, clock: FakeClock): number | null {
  try {
    admission.check([{ ms: clock.now().getTime() - 30 * 60_000, values: [] }]);
    return null;
  } catch (error) {
    assert.ok(error instanceof TooMany);
    return error.retryAfterSeconds;
  }
}

describe('admission: refused replays are asked back at the pace replays are admitted', () => {
  /** An admission whose write path is made deep (150 samples not yet answered) by `deepen`. */
  function admission(retryAfterSeconds?: { min: number; max: number }) {
    const clock = new FakeClock(new Date('2026-11-29T12:00:00Z'));
    const paced = createAdmission({
      clock,
      maxPendingSamples: 100,
      drainTargetMs: 0,
      random: () => 0.5,
      retryAfterSeconds,
    });
    // a live batch of 150 samples handed to a write that never settles
    const deepen = () =>
      paced.check([{ ms: clock.now().getTime(), values: { length: 150 } }]).holdUntil(new Promise(() => {}));
    return { clock, waitOf: () => replayWaitOf(paced, clock), deepen };
  }

  it('gives a fleet refused at once return times one after the other, at the turn pace when nothing else is admitted', () => {
    const { waitOf, deepen } = admission();
    deepen();
    // a turn every 500 ms (2 a second), asked back 1.5 times faster: one return every 1/3 s from 5 s on
    const waits = Array.from({ length: 30 }, () => waitOf());
    assert.deepEqual(waits.slice(0, 4), [6, 6, 6, 7]);
    assert.equal(waits.at(-1), 15, '30 refused come back over 10 s');
    for (let i = 1; i < waits.length; i++) assert.ok((waits[i] as number) >= (waits[i - 1] as number));
  });

  it('asks them back faster when more replays were admitted, and spreads those past the cap over its upper half', () => {
    const { clock, waitOf, deepen } = admission({ min: 5, max: 60 });
    // 40 replays admitted in 10 s while the path had room: 4 a second, so asked back at ~6 a second
    for (let i = 0; i < 40; i++) {
      clock.advance(250);
      assert.equal(waitOf(), null);
    }
    deepen();
    const waits = Array.from({ length: 600 }, () => waitOf());
    assert.equal(waits[0], null, 'the turn');
    const within15 = waits.filter((w) => w !== null && w <= 15).length;
    assert.ok(within15 >= 58 && within15 <= 64, `~60 asked back within 15 s (${within15}), 30 at the turn pace`);
    assert.ok(waits.every((w) => w === null || (w >= 5 && w <= 60)));
    assert.ok(waits.filter((w) => w === 45).length > 200, 'past the cap: drawn from 30–60 s (here its middle)');
  });

  it('takes the pace over the time its admissions span, so the first second of a surge does not space returns 10 × too far', () => {
    const { clock, waitOf, deepen } = admission({ min: 5, max: 300 });
    // a surge: 50 replays admitted within its first second (after a quiet 10 s)
    clock.advance(10_000);
    for (let i = 0; i < 50; i++) {
      clock.advance(20);
      assert.equal(waitOf(), null);
    }
    deepen();
    // 50 a second, asked back at 75 a second: 750 refused at once come back within ~15 s, not ~105 s
    const waits = Array.from({ length: 750 }, () => waitOf()).filter((w): w is number => w !== null);
    assert.ok((waits.at(-1) as number) <= 16, `the last asked back after ${waits.at(-1)} s`);
    assert.ok((waits.at(-1) as number) >= 14);
  });

  it('keeps a fixed wait when min and max are equal', () => {
    const { waitOf, deepen } = admission({ min: 20, max: 20 });
    deepen();
    assert.ok(Array.from({ length: 50 }, () => waitOf()).every((w) => w === 20));
  });
});

describe('admission: how deep is too deep follows the commit', () => {
  /**
   * An admission whose writes settle when the test says: `write(n)` admits a live batch of n samples,
   * hands it to a write and answers a function that commits it (or, with `false`, fails it). The
   * replay's turn is an hour apart here, so only the depth decides.
   */
  function paced(options: { floor: number; targetMs?: number; cap: number }) {
    const clock = new FakeClock(new Date('2026-11-29T12:00:00Z'));
    const admission = createAdmission({
      clock,
      maxPendingSamples: options.floor,
      ...(options.targetMs === undefined ? {} : { drainTargetMs: options.targetMs }),
      paceMaxPendingSamples: options.cap,
      replayGapMs: 3_600_000,
      random: () => 0.5,
    });
    const write = (samples: number) => {
      let settle = (_ok: boolean) => {};
      const writing = new Promise<void>((resolve, reject) => {
        settle = (ok) => (ok ? resolve() : reject(new Error('refused')));
      });
      admission.check([{ ms: clock.now().getTime() - 30_000, values: { length: samples } }]).holdUntil(writing);
      const answer = writing.catch(() => null);
      return async (ok = true) => {
        settle(ok);
        await answer;
      };
    };
    /** Whether a replay (30 minutes old) is admitted now. */
    const admits = () => replayWaitOf(admission, clock) === null;
    const live = () => admission.check([{ ms: clock.now().getTime() - 30_000, values: [] }]);
    return { clock, admission, write, admits, live };
  }

  it('admits replays above the floor while what is pending is committed within the target at the recent pace', async () => {
    const { clock, admission, write, admits } = paced({ floor: 1_000, targetMs: 1_000, cap: 100_000 });
    assert.equal(admission.limit(), 1_000, 'nothing committed yet: the floor');
    // 12,000 samples committed over the last 2 s: 6,000 a second
    for (let i = 0; i < 4; i++) {
      clock.advance(500);
      await write(3_000)();
    }
    assert.equal(admission.limit(), 6_000, 'what 1 s of that pace commits');
    const pending = write(5_500);
    assert.equal(admits(), true, '5,500 pending: above the floor, within a second of commits');
    const more = write(1_000);
    assert.equal(admits(), false, '6,500 pending: more than a second of commits');
    await pending();
    assert.equal(admits(), true, 'once committed, replays are admitted again');
    await more();
  });

  it('falls back to the floor when commits stop, and never rises above the cap', async () => {
    const { clock, admission, write, admits, live } = paced({ floor: 1_000, targetMs: 1_000, cap: 8_000 });
    await write(30_000)();
    assert.equal(admission.limit(), 8_000, '15,000 a second, capped');
    const deep = write(9_000);
    assert.equal(admits(), false, 'above the cap');
    assert.doesNotThrow(live, 'a live report is never refused');
    await deep();
    clock.advance(2_000);
    assert.equal(admission.limit(), 1_000, 'nothing committed in the last 2 s: the floor');
    const slow = write(1_500);
    assert.equal(admits(), false);
    await slow();
  });

  it('counts only committed writes towards the pace', async () => {
    const { admission, write } = paced({ floor: 1_000, targetMs: 1_000, cap: 100_000 });
    await write(10_000)(false);
    assert.equal(admission.pending(), 0, 'a failed write leaves the count');
    assert.equal(admission.limit(), 1_000, 'and does not raise the limit');
    await write(10_000)();
    assert.equal(admission.limit(), 5_000);
  });

  it('holds an admitted batch as pending until its write settles, so a batch checked meanwhile counts it', async () => {
    const { clock, admission } = paced({ floor: 1_000, targetMs: 0, cap: 100_000 });
    const replay = (samples: number) =>
      admission.check([{ ms: clock.now().getTime() - 30 * 60_000, values: { length: samples } }]);
    const first = replay(900);
    assert.equal(admission.pending(), 900, 'admitted and awaiting its rate limit: already pending');
    const second = replay(900);
    assert.throws(() => replay(900), TooMany, 'the third sees the two admitted before it (1,800 > 1,000)');
    first.release();
    first.release();
    assert.equal(admission.pending(), 900, 'a reservation is released once');
    let commit = () => {};
    const writing = new Promise<void>((resolve) => (commit = resolve));
    second.holdUntil(writing);
    second.release();
    assert.equal(admission.pending(), 900, 'handed to the writer: held until the write settles, once');
    commit();
    await writing;
    assert.equal(admission.pending(), 0, 'the write settled: counted once, not twice');
    assert.doesNotThrow(() => replay(900).release());
  });

  it('keeps the pace of the last 2 s over thousands of commits, its window cut as it goes', async () => {
    const { clock, admission, write } = paced({ floor: 1_000, targetMs: 1_000, cap: 100_000 });
    for (let i = 0; i < 6_000; i++) {
      clock.advance(1);
      await write(10)();
    }
    assert.equal(admission.limit(), 10_000, 'the 2,000 commits of the last 2 s (20,000 samples), at 1 s of that pace');
    clock.advance(1_000);
    assert.equal(admission.limit(), 5_000, 'half of them left the window');
  });

  it('uses the floor alone with a drain target of 0, and defaults to a 1 s target', async () => {
    const fixed = paced({ floor: 1_000, targetMs: 0, cap: 100_000 });
    await fixed.write(50_000)();
    assert.equal(fixed.admission.limit(), 1_000);
    const byDefault = paced({ floor: 1_000, cap: 100_000 });
    await byDefault.write(50_000)();
    assert.equal(byDefault.admission.limit(), 25_000);
  });
});
