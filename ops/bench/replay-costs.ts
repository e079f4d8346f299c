/**
 * `bench replay --costs`: what the admission of replayed batches has to weigh, one row per report.
 *
 * - **Memory of a pending sample**: replayed buffers of 60 agent-sim reports (60 samples each) as they
 *   wait in the group commit's queue (their inflated body, which the request's frame still holds, and
 *   the packed reports: a shared series set and an array of values), heap + external after a GC,
 *   divided by the samples held.
 * - **The statement time of a batch**: Argus's group-commit statement (the repo's storeBatch) on a
 *   fresh database, for live reports alone (one report a system, as the fleet's live traffic) and for
 *   live reports with 1–16 replayed buffers of 60 reports each (older times, so the newest values take
 *   the merge path as a replay does), the shapes alternated over a few rounds, medians printed.
 *
 * Figures only; nothing passes or fails.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createIngestRepo, emptyBatchArrays, type BatchArrays } from '../../backend/src/ingest/repo.js';
import { createSeriesSets } from '../../backend/src/ingest/series-sets.js';
import { parseAgentBody } from '../../backend/src/ingest/agent-body.js';
import { parseJsonBody } from '../../backend/src/ingest/body.js';
import type { ReportToStore } from '../../backend/src/ingest/types.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { createCustomer } from '../../backend/src/testing/accounts.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';
import { median } from './statistics.js';

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
const REPLAY_REPORTS = 60;
const INTERVAL_MS = 30_000;

function bodyJson(host: SimulatedHost, times: number[]): string {
  const reports = times.map(
    (ms) => `{"ts":${JSON.stringify(new Date(ms).toISOString())},"metrics":${host.metricsJson(host.sampleValues(ms))}}`,
  );
  const agent = { version: '2.28.1', hostname: 'h', os: 'Ubuntu 24.04', kernel: '6.8.0-45', arch: 'x86_64', cores: 2 };
  return `${JSON.stringify({ agent }).slice(0, -1)},"reports":[${reports.join(',')}]}`;
}

/** Bytes a pending sample holds while its replayed buffer waits for its statement. */
function pendingMemory(buffers: number) {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const hosts = Array.from({ length: 20 }, (_, i) => new SimulatedHost(i + 1));
  const base = Date.now() - 3_600_000;
  const times = Array.from({ length: REPLAY_REPORTS }, (_, i) => base + i * INTERVAL_MS);
  const seriesSets = createSeriesSets();
  const measure = (keepRaw: boolean) => {
    for (let i = 0; i < 3; i++) gc();
    const before = process.memoryUsage();
    const held: { raw: Buffer | null; reports: ReportToStore[] }[] = [];
    let samples = 0;
    let bodyBytes = 0;
    let parseMs = 0;
    for (let b = 0; b < buffers; b++) {
      const raw = Buffer.from(bodyJson(hosts[b % hosts.length] as SimulatedHost, times));
      bodyBytes += raw.length;
      const started = performance.now();
      const body = parseAgentBody(parseJsonBody(raw));
      const reports = body.reports.map((report) => {
        const { set, values } = seriesSets.pack(b + 1, report.metrics);
        samples += values.length;
        return { ms: Date.parse(report.ts), set, values, events: report.events ?? [] };
      });
      parseMs += performance.now() - started;
      held.push({ raw: keepRaw ? raw : null, reports });
    }
    for (let i = 0; i < 3; i++) gc();
    const after = process.memoryUsage();
    const bytes = after.heapUsed - before.heapUsed + (after.external - before.external);
    if (held.length !== buffers) throw new Error('unreachable');
    return { perSample: bytes / samples, bodyBytes: bodyBytes / samples, parseMs: parseMs / buffers };
  };
  const withRaw = measure(true);
  const packed = measure(false);
  return {
    perSample: withRaw.perSample,
    perSamplePacked: packed.perSample,
    bodyBytes: withRaw.bodyBytes,
    parseMs: Math.min(withRaw.parseMs, packed.parseMs),
  };
}

export async function benchReplayCosts(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      costs: { type: 'boolean' },
      rounds: { type: 'string', default: '5' },
      live: { type: 'string', default: '50' },
    },
  });
  const rounds = Number(values.rounds);
  const liveCount = Number(values.live);
  console.log(`bench replay --costs: load average ${load()}`);

  const memory = pendingMemory(500);
  console.log(
    `pending memory: ${memory.perSample.toFixed(0)} bytes a sample with its inflated body held ` +
      `(${memory.bodyBytes.toFixed(0)} bytes of JSON a sample), ${memory.perSamplePacked.toFixed(0)} bytes packed alone; ` +
      `100,000 pending samples = ${((memory.perSample * 100_000) / 1048576).toFixed(0)} MiB; ` +
      `a replayed buffer of ${REPLAY_REPORTS} reports parsed, checked and packed in ${memory.parseMs.toFixed(1)} ms`,
  );

  const db = await createTestDatabase();
  try {
    const knex = db.knex;
    const customerId = await createCustomer(knex, 'Costs');
    const systems = 2000;
    const ids = (
      await knex('systems')
        .insert(Array.from({ length: systems }, (_, i) => ({ customer_id: customerId, name: `c${i}` })))
        .returning<{ id: number }[]>('id')
    ).map((row) => row.id);
    const hosts = ids.map((_, i) => new SimulatedHost(i + 1));
    const repo = createIngestRepo(knex);
    const seriesSets = createSeriesSets();
    const now = Date.now();
    // live reports go forward from now, replays backward from 30 minutes ago: never the same time twice
    const liveNext = new Map<number, number>();
    const replayNext = new Map<number, number>();
    let liveCursor = 0;
    let replayCursor = systems / 2;

    const push = (arrays: BatchArrays, index: number, ms: number) => {
      const system = ids[index] as number;
      arrays.reports.systemId.push(system);
      arrays.reports.ms.push(ms);
      const { set, values } = seriesSets.pack(system, (hosts[index] as SimulatedHost).sample(ms));
      arrays.reports.sets.push(set);
      for (const value of values) arrays.values.push(value);
    };
    const touch = (arrays: BatchArrays, index: number) => {
      const s = arrays.systems;
      s.id.push(ids[index] as number);
      s.seenMs.push(Date.now());
      s.version.push('2.28.1');
      s.hostname.push(`c${index}`);
      s.os.push('linux');
      s.kernel.push('6.8');
      s.arch.push('x86_64');
      s.cores.push(2);
    };
    const batchOf = (live: number, replays: number): BatchArrays => {
      const arrays: BatchArrays = emptyBatchArrays(new Date());
      for (let i = 0; i < live; i++) {
        const index = liveCursor++ % (systems / 2);
        const ms = (liveNext.get(index) ?? now) + INTERVAL_MS;
        liveNext.set(index, ms);
        push(arrays, index, ms);
        touch(arrays, index);
      }
      for (let r = 0; r < replays; r++) {
        const index = systems / 2 + (replayCursor++ % (systems / 2));
        const end = replayNext.get(index) ?? now - 30 * 60_000;
        for (let k = REPLAY_REPORTS; k >= 1; k--) push(arrays, index, end - k * INTERVAL_MS);
        replayNext.set(index, end - REPLAY_REPORTS * INTERVAL_MS);
        touch(arrays, index);
      }
      return arrays;
    };
    // every replaying system first has a newest value (its live report), as after the outage
    for (let i = 0; i < systems / 2; i += 100) {
      const arrays = batchOf(0, 0);
      for (let k = i; k < i + 100; k++) {
        push(arrays, systems / 2 + k, now);
        touch(arrays, systems / 2 + k);
      }
      await repo.storeBatch(arrays);
    }

    const shapes = [
      { live: liveCount, replays: 0 },
      { live: liveCount * 4, replays: 0 },
      { live: liveCount, replays: 1 },
      { live: liveCount, replays: 2 },
      { live: liveCount, replays: 4 },
      { live: liveCount, replays: 8 },
      { live: liveCount, replays: 16 },
    ];
    const times = shapes.map(() => [] as number[]);
    for (let warm = 0; warm < 3; warm++) await repo.storeBatch(batchOf(liveCount, 2));
    for (let round = 0; round < rounds; round++) {
      for (const [s, shape] of shapes.entries()) {
        for (let repeat = 0; repeat < 3; repeat++) {
          const arrays = batchOf(shape.live, shape.replays);
          const started = performance.now();
          await repo.storeBatch(arrays);
          times[s]?.push(performance.now() - started);
        }
      }
    }
    console.log(`statement time (one connection, ${rounds} rounds × 3 of each shape, medians), load ${load()}:`);
    const liveAlone = median(times[0] ?? []);
    for (const [s, shape] of shapes.entries()) {
      const ms = median(times[s] ?? []);
      const reports = shape.live + shape.replays * REPLAY_REPORTS;
      const extra = shape.replays ? `, ${((ms - liveAlone) / shape.replays).toFixed(1)} ms a replayed buffer` : '';
      console.log(
        `  ${String(shape.live).padStart(4)} live + ${String(shape.replays).padStart(2)} replayed buffers ` +
          `(${reports} reports, ${reports * 60} samples): ${ms.toFixed(1)} ms, ` +
          `${((ms / reports) * 1000).toFixed(0)} µs a report${extra}`,
      );
    }
    console.log(`load average at the end: ${load()}`);
  } finally {
    await db.drop();
  }
}
