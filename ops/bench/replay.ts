/**
 * `bench replay`: N simulated agents (ops/agent-sim, thousands per process) report
 * every 30 s to the real server (what `npm start` runs, in production mode: bench/argus-server.ts,
 * on a fresh database). Argus is away for 30 minutes, then every
 * agent replays its buffer while the fleet's live reports keep coming. Prints what was lost (samples
 * in the database against those made), duplicates, latency of live and replayed requests during
 * the replay, the server's RSS through the run, the replay's duration and the load average.
 * Figures only; nothing passes or fails.
 *
 *   npm run bench -- replay [--agents 10000] [--interval 30] [--outage-minutes 30] [--duplicates 0.02]
 *     [--processes 2]   (load-generating processes, replay-worker.ts)
 *     [--baseline DIR]  (the server of another checkout, e.g. the code before a change, run as
 *                        `npm start` runs it there, with this checkout's agents and figures)
 *
 * The outage is compressed, not waited: the agents report live for one interval (warm-up), then are
 * cut off (their requests are not sent; they keep collecting every interval into their buffers,
 * really) for at least one interval, until each agent's buffer also holds what the outage's earlier
 * minutes made: one report per interval timestamped over the 30 minutes before the cut (the agents'
 * clock is faked for those reports only; the server's is real), drawn and compressed once, as an
 * agent writes its buffer while away (agent-sim `backfill`, `prepareBacklog`). Then all reconnect at
 * their next tick, spread over the interval as they were. A share of
 * the agents (`--duplicates`) resends its previous request with each request, as an agent whose
 * answer was lost does. A request is "live" when its oldest report is at most two intervals old.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { isMain } from '../../db/is-main.js';
import { randomToken, sha256 } from '../../backend/src/lib/crypto.js';
import { SimulatedHost } from '../agent-sim/catalogue.js';
import { webhookUrl } from '../agent-sim/main.js';
import { backendCpuSince, startArgusServer, type ArgusServer } from './argus-server.js';
import type { Phase, WindowFigures, WindowName, WorkerProgress, WorkerResult, WorkerStart } from './replay-worker.js';
import { percentile } from './statistics.js';

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const WORKER = fileURLToPath(new URL('./replay-worker.ts', import.meta.url));

/** The workers' figures of one window, merged. */
function merge(parts: WindowFigures[]): WindowFigures {
  const statuses = new Map<number, number>();
  for (const part of parts) for (const [code, n] of part.statuses) statuses.set(code, (statuses.get(code) ?? 0) + n);
  return {
    live: parts.flatMap((part) => part.live).sort((a, b) => a - b),
    replayed: parts.flatMap((part) => part.replayed).sort((a, b) => a - b),
    waits: parts.flatMap((part) => part.waits).sort((a, b) => a - b),
    statuses: [...statuses],
    accepted: parts.reduce((sum, part) => sum + part.accepted, 0),
    duplicates: parts.reduce((sum, part) => sum + part.duplicates, 0),
  };
}

function describeWindow(name: string, w: WindowFigures): string {
  const ms = (sorted: number[]) =>
    sorted.length
      ? `${sorted.length} requests, p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ` +
        `${percentile(sorted, 99).toFixed(0)} ms, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms`
      : 'none';
  const statuses = w.statuses.map(([code, n]) => `${code || 'network error'}: ${n}`).join(', ');
  const waits = w.waits.length
    ? `; Retry-After p10 ${percentile(w.waits, 10)} s, p50 ${percentile(w.waits, 50)} s, p90 ${percentile(w.waits, 90)} s, max ${w.waits.at(-1)} s`
    : '';
  return (
    `${name}: live ${ms(w.live)}; replayed ${ms(w.replayed)}\n` +
    `  answers ${statuses || 'none'}${waits}; reports accepted ${w.accepted}, duplicates ${w.duplicates}`
  );
}

/**
 * What the server did since the last call: cores of its process and of its PostgreSQL backends,
 * statements a second and their mean time, samples stored a second, and the samples pending now.
 */
function serverLoadSince(server: ArgusServer) {
  let last: Awaited<ReturnType<ArgusServer['snapshot']>> | null = null;
  let lastAt = Date.now();
  return async () => {
    const now = await server.snapshot();
    const seconds = (Date.now() - lastAt) / 1000;
    const before = last;
    last = now;
    lastAt = Date.now();
    if (!before) return '';
    const d = (field: 'cpuSeconds' | 'statements' | 'statementSeconds' | 'samples') => now.at[field] - before.at[field];
    const statements = d('statements');
    return (
      `server ${(d('cpuSeconds') / seconds).toFixed(2)} cores, PostgreSQL ` +
      `${(backendCpuSince(before.backends, now.backends) / seconds).toFixed(2)} cores, ` +
      `${(statements / seconds).toFixed(1)} statements/s of ${((d('statementSeconds') / Math.max(1, statements)) * 1000).toFixed(0)} ms, ` +
      `${(d('samples') / seconds / 1000).toFixed(1)}k samples/s, pending ${now.at.pendingSamples}` +
      `${now.at.pendingLimit ? `, limit ${now.at.pendingLimit}` : ''}; `
    );
  };
}

/**
 * Waits until the agents' backlogs are stored, noting when half, 90 % and all of the backlog at the
 * recovery was, and the load average's range meanwhile.
 */
async function drainMilestones(backlog: () => number, recovery: number) {
  const initial = backlog();
  const at = new Map<number, number>();
  const loads: number[] = [];
  await sleep(3000);
  for (;;) {
    const left = backlog();
    for (const share of [50, 90, 100])
      if (!at.has(share) && left <= initial * (1 - share / 100)) at.set(share, (Date.now() - recovery) / 1000);
    loads.push(loadavg()[0] ?? 0);
    if (left === 0) break;
    await sleep(500);
  }
  const minutes = (share: number) => `${share} % after ${((at.get(share) ?? NaN) / 60).toFixed(1)} min`;
  return {
    describe: () =>
      `of the ${initial} backlogged reports at the recovery ${[50, 90, 100].map(minutes).join(', ')}; ` +
      `load average (1 min) during the replay ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  };
}

/** N systems bound to agent keys, as after their first reports (enrolment is item 1's subject). */
async function fleet(admin: pg.Client, enrollmentKey: string, count: number, run: string): Promise<string[]> {
  const cluster = await admin.query<{ id: number; customer_id: number }>(
    'SELECT id, customer_id FROM clusters WHERE enrollment_key = $1',
    [enrollmentKey],
  );
  const { id, customer_id: customerId } = cluster.rows[0] as { id: number; customer_id: number };
  const keys = Array.from({ length: count }, () => randomToken(32));
  await admin.query(
    `INSERT INTO systems (customer_id, cluster_id, name, agent_id, agent_key_hash, status)
     SELECT $1, $2, $3 || '-host-' || (n - 1), $3 || '-' || (n - 1), hash, 'ONLINE'
     FROM unnest($4::text[]) WITH ORDINALITY AS t(hash, n)`,
    [customerId, id, run, keys.map((key) => sha256(key))],
  );
  return keys;
}

/** The server's resident memory, a sample a second (bytes, from /proc). */
function sampleRss(pid: number) {
  const samples: { at: number; bytes: number }[] = [];
  const timer = setInterval(() => {
    let status = '';
    try {
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      return; // the server has exited
    }
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    if (kib) samples.push({ at: Date.now(), bytes: Number(kib) * 1024 });
  }, 1000);
  return { samples, stop: () => clearInterval(timer) };
}

export async function benchReplay(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      agents: { type: 'string', default: '10000' },
      interval: { type: 'string', default: '30' },
      'outage-minutes': { type: 'string', default: '30' },
      duplicates: { type: 'string', default: '0.02' },
      processes: { type: 'string', default: '2' },
      baseline: { type: 'string' },
    },
  });
  const count = Number(values.agents);
  const intervalMs = Number(values.interval) * 1000;
  const outageMs = Number(values['outage-minutes']) * 60_000;
  const backlogPerAgent = Math.round(outageMs / intervalMs);
  const processes = Math.max(1, Number(values.processes));
  console.log(
    `bench replay: ${count} agents every ${intervalMs / 1000} s in ${processes} processes, Argus away ` +
      `${outageMs / 60_000} min (${backlogPerAgent} reports buffered per agent), ` +
      `${Number(values.duplicates) * 100}% resending their previous request; ` +
      `${values.baseline ? `the server of ${values.baseline}; ` : ''}load average ${load()}`,
  );

  let server: ArgusServer | null = null;
  let admin: pg.Client | null = null;
  let rss: ReturnType<typeof sampleRss> | null = null;
  const workers: ChildProcess[] = [];
  // stopped by hand: the server, the generators, redis and the database go too
  const abort = () =>
    void (async () => {
      for (const worker of workers) worker.kill();
      rss?.stop();
      await admin?.end();
      await server?.stop();
      process.exit(130);
    })();
  process.once('SIGINT', abort).once('SIGTERM', abort);
  try {
    const run = `replay${Date.now().toString(36)}`;
    server = await startArgusServer({ clusters: 1, ...(values.baseline ? { checkout: values.baseline } : {}) });
    rss = sampleRss(server.pid);
    admin = new pg.Client({ connectionString: server.databaseUrl });
    await admin.connect();
    const keys = await fleet(admin, server.enrollmentKeys[0] as string, count, run);
    const duplicating = Math.round(count * Number(values.duplicates));
    const progress = new Map<ChildProcess, WorkerProgress>();
    const results = new Map<ChildProcess, WorkerResult>();
    const startAt = Date.now() + 2000;
    for (let w = 0; w < processes; w++) {
      const worker = fork(WORKER, [], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      worker.on('message', (message: WorkerProgress | WorkerResult) => {
        if (message.type === 'progress') progress.set(worker, message);
        else results.set(worker, message);
      });
      const start: WorkerStart = {
        type: 'start',
        url: webhookUrl(server.url),
        secret: server.secret,
        intervalMs,
        outageMs,
        backlogPerAgent,
        fleetSize: count,
        startAt,
        agents: keys
          .map((agentKey, index) => ({
            index,
            sub: `${run}-${index}`,
            hostname: `${run}-host-${index}`,
            agentKey,
            duplicates: index % processes === w && index < duplicating,
          }))
          .filter(({ index }) => index % processes === w),
      };
      worker.send(start);
      workers.push(worker);
    }
    const total = (field: keyof Omit<WorkerProgress, 'type'>) =>
      [...progress.values()].reduce((sum, p) => sum + p[field], 0);
    let phase: Phase = 'warm-up';
    const announce = (next: Phase, at = Date.now()) => {
      phase = next;
      for (const worker of workers) worker.send({ type: 'phase', phase: next, at });
    };
    const rssNow = () => rss?.samples.at(-1)?.bytes ?? 0;
    // what the console shows: systems heard from in the last minute (OFFLINE comes after 2 minutes' silence)
    const seenLastMinute = async () =>
      Number(
        (
          await admin!.query<{ n: string }>(
            `SELECT count(*) AS n FROM systems WHERE last_seen_at > now() - interval '1 minute'`,
          )
        ).rows[0]?.n ?? 0,
      );
    const serverLoad = serverLoadSince(server);
    const status = setInterval(async () => {
      const delay = Math.max(0, ...[...progress.values()].map((p) => p.loopDelayP99Ms));
      const seen = await seenLastMinute().catch(() => NaN);
      const work = await serverLoad().catch(() => '');
      console.log(
        `  ${((Date.now() - startAt) / 1000).toFixed(0)} s ${phase}: backlog ${total('backlog')} reports at ` +
          `${total('waiting')} agents${phase === 'outage' ? ` (${total('prepared')} prepared)` : ''}; ` +
          `systems heard from in the last minute ${seen}; ` +
          `429s ${total('refused')}; server rss ${mib(rssNow())}; ${work}load ${load()}; ` +
          `generator loop delay p99 ${delay.toFixed(0)} ms`,
      );
    }, intervalMs);

    await sleep(startAt + intervalMs - Date.now());
    const rssBefore = rssNow();
    announce('outage');
    await sleep(intervalMs);
    while (total('prepared') < count) await sleep(500);
    const recovery = Date.now();
    console.log(
      `  recovery after ${((recovery - startAt) / 1000 - intervalMs / 1000).toFixed(0)} s cut off: ` +
        `${total('buffered')} reports buffered`,
    );
    announce('replay', recovery);
    const drained = await drainMilestones(() => total('backlog'), recovery);
    const replaySeconds = (Date.now() - recovery) / 1000;
    const rssAtReplayEnd = rssNow();
    announce('after');
    await sleep(intervalMs);
    announce('drain');
    const drainDeadline = Date.now() + 10 * intervalMs;
    await sleep(2000);
    while ((total('buffered') > 0 || total('inFlight') > 0) && Date.now() < drainDeadline) await sleep(500);
    clearInterval(status);
    for (const worker of workers) worker.send({ type: 'stop' });
    while (results.size < workers.length) await sleep(200);
    const memory = rss.samples.filter((r) => r.at >= startAt);

    const made = new Map<string, number>();
    for (const result of results.values()) for (const [index, n] of result.made) made.set(`${run}-${index}`, n);
    const figures = (name: WindowName) => merge([...results.values()].map((r) => r.windows[name]));
    const windows = { before: figures('before'), replay: figures('replay'), after: figures('after') };
    const samplesPerReport = new SimulatedHost(1).sample(Date.now()).length;
    // what the database holds, per system, against what each agent made
    const rows = await admin.query<{ agent_id: string; n: string }>(
      'SELECT s.agent_id, coalesce(sum(cardinality(m.vals)), 0) AS n FROM systems s LEFT JOIN metrics m ON m.system_id = s.id GROUP BY s.agent_id',
    );
    let expected = 0;
    let missing = 0;
    let extra = 0;
    for (const row of rows.rows) {
      const want = (made.get(row.agent_id) ?? 0) * samplesPerReport;
      const have = Number(row.n);
      expected += want;
      if (have < want) missing += want - have;
      if (have > want) extra += have - want;
    }
    const all = Object.values(windows);
    const accepted = all.reduce((sum, w) => sum + w.accepted, 0);
    const duplicates = all.reduce((sum, w) => sum + w.duplicates, 0);
    const madeReports = [...made.values()].reduce((a, b) => a + b, 0);

    console.log(`\n${describeWindow('warm-up (before the outage)', windows.before)}`);
    console.log(describeWindow('during the replay', windows.replay));
    console.log(describeWindow('after the replay', windows.after));
    console.log(
      `replay: ${replaySeconds.toFixed(0)} s from the recovery until the last agent's backlog was stored ` +
        `(${count * backlogPerAgent} buffered reports); ${drained.describe()}`,
    );
    console.log(
      `samples: ${expected} made, ${expected - missing + extra} in the database: ${missing} missing, ${extra} extra; ` +
        `reports accepted ${accepted} (made ${madeReports}), duplicates answered 200: ${duplicates}; ` +
        `still buffered at the end: ${total('buffered')}`,
    );
    const minute = memory.filter((_, i) => i % 60 === 0).map((r) => mib(r.bytes));
    console.log(
      `server rss: ${mib(rssBefore)} after the warm-up, ${mib(rssAtReplayEnd)} at the replay's end, ` +
        `${mib(memory.at(-1)?.bytes ?? 0)} at the end, max ${mib(Math.max(...memory.map((r) => r.bytes)))}; ` +
        `each minute: ${minute.join(', ')}`,
    );
    console.log(`load average at the end: ${load()}`);
  } finally {
    process.off('SIGINT', abort).off('SIGTERM', abort);
    for (const worker of workers) if (worker.exitCode === null) worker.kill();
    rss?.stop();
    await admin?.end();
    await server?.stop();
  }
}

if (isMain(import.meta.url)) await benchReplay(process.argv.slice(2));
