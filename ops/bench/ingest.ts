/**
 * `bench ingest`: the real server (`npm start`'s process,
 * production mode, ops/bench/argus-server.ts) and the ceiling, measured in the
 * same run and alternately, so a slow spell of this shared machine lowers both.
 * Each round: Argus saturated (every agent sends again as soon as it is
 * answered; with --baseline both checkouts, in turn first), Prometheus's
 * remote-write receiver saturated with the same reports by as many senders
 * (prometheus-peer.ts; skipped, saying how to install it, when the machine has
 * no `prometheus`), Argus paced at --rate reports/s, then the ceiling (plain
 * unnest insert straight into PostgreSQL) at each checkout's statement size and
 * Argus's own group-commit statement alone (same rows and connections, no HTTP).
 * Figures only; nothing passes or fails.
 *
 *   npm run bench -- ingest [--systems 300] [--seconds 15] [--rounds 3] [--rate 2000] [--no-gzip]
 *     [--no-fresh-tokens] [--baseline DIR] [--profile DIR] [--connections 4] [--no-prometheus]
 *     [--containers 50] [--node-args="--max-semi-space-size=64"] [--no-write-ahead] [--processes 2]
 *
 * Agents send as the argus-agent does: gzip bodies and a new token a request (its own HMAC, so no
 * token is served from the server's cache). --no-gzip sends plain JSON and --no-fresh-tokens reuses a
 * token for 4 minutes (how the bench sent before 2026-11-28: cheaper for the server than agents are).
 * After the warm-up (enrolment), every phase's requests are written before it (written-ahead.ts: the
 * same bodies and fresh tokens) and sent on one raw keep-alive connection an agent, and Prometheus's
 * the same way, so the bench's own CPU during a phase is little beside what it measures;
 * --no-write-ahead writes and sends them as the phase goes (node:http), as before 2026-11-29.
 * --baseline DIR runs the server of another checkout too (e.g. `git worktree add /tmp/base main`),
 * each of its phases right after this checkout's: before/after of a change in one run.
 * --profile DIR writes a CPU profile of each server (node --cpu-prof) when it stops.
 * --containers N: each host also reports N running containers (13 series each).
 * --node-args="FLAGS": node flags for this checkout's server alone (not the baseline's): a flag's
 * effect, measured with --baseline DIR set to the same code.
 * --processes N: this checkout's server (not the baseline's) serves HTTP in N processes
 * (cluster-server.ts, measurement only: each process runs the server's singletons too); its CPU
 * is summed over the processes and its event loop's busy share averaged.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { isMain } from '../../db/is-main.js';
import { webhookUrl } from '../agent-sim/main.js';
import { SimulatedAgent } from '../agent-sim/agent.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { backendCpuSince, startArgusServer, type ArgusServer, type ServerSnapshot } from './argus-server.js';
import { ceilingPhase, openCeiling } from './ingest-ceiling.js';
import { openPeer, peerPhase, peerSummary, type Peer } from './prometheus-peer.js';
import { nextTime, writeAhead, writtenLine, type PhaseOptions } from './written-ahead.js';
import { cpuAccount, medianCpu, type CpuPerReport } from './ingest-figures.js';
import { fmt, median, percentile } from './statistics.js';

export interface Contender {
  label: string;
  server: ArgusServer;
  agents: SimulatedAgent[];
  saturated: PhaseResult[];
  paced: PhaseResult[];
  ratios: number[];
  /** Argus/Prometheus, saturated reports/s of each round. */
  peerRatios: number[];
}

export interface PhaseResult {
  reportsPerS: number;
  p50: number;
  p99: number;
  samplesPerStatement: number;
  /** CPU a stored report (ms): the server's process, its database's PostgreSQL backends, the bench. */
  cpu: CpuPerReport;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => os.loadavg()[0]?.toFixed(1) ?? '?';

/** Agents send for `seconds` (as fast as answered, or `rate` reports/s in total); the server's share measured (the checks bench too). */
export async function argusPhase(
  name: string,
  contender: Contender,
  seconds: number,
  rate: number | null,
  samplesPerReport: number,
  options: PhaseOptions = {},
): Promise<PhaseResult> {
  const { server, agents } = contender;
  const url = webhookUrl(server.url);
  const written = options.prepared ? await writeAhead(agents, url, seconds, rate, options.prepared.expectedRate) : null;
  const before = await server.snapshot();
  const benchCpu = process.cpuUsage();
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  let reports = 0;
  let writtenLate = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const period = rate ? (agents.length / rate) * 1000 : 0;
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  await Promise.all(
    agents.map(async (agent, i) => {
      let next = started + (period * i) / agents.length;
      const sender = written?.senders[i] ?? null;
      while (performance.now() < until) {
        if (period) {
          const wait = next - performance.now();
          if (wait > 0) await sleep(wait);
          next += period;
        }
        if (sender) {
          const outcome = await sender.send();
          count(outcome.status);
          if (outcome.status === 200) {
            reports += outcome.accepted;
            latencies.push(outcome.ms);
          } else if (outcome.waitMs) await sleep(Math.max(50, Math.min(outcome.waitMs, until - performance.now())));
          continue;
        }
        const ts = nextTime(agent);
        agent.collect(ts);
        const result = await agent.send(ts);
        if (!result) {
          await sleep(50); // paused by a Retry-After: do not spin
          continue;
        }
        count(result.status);
        if (result.status === 200) {
          reports += result.accepted ?? 0;
          latencies.push(result.ms);
        }
      }
      writtenLate += sender?.writtenLate ?? 0;
      sender?.close();
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(benchCpu);
  await sleep(1100); // the loop probe writes once a second
  const after = await server.snapshot();
  const d = (key: keyof ServerSnapshot) => after.at[key] - before.at[key];
  const sorted = latencies.sort((a, b) => a - b);
  const reportsPerS = reports / wall;
  const postgresCores = backendCpuSince(before.backends, after.backends) / wall;
  const benchCores = (cpu.user + cpu.system) / 1e6 / wall;
  const perReport = (cores: number) => (cores * 1000) / Math.max(1e-9, reportsPerS);
  const result: PhaseResult = {
    reportsPerS,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    samplesPerStatement: d('statements') ? d('samples') / d('statements') : samplesPerReport,
    cpu: {
      server: perReport(d('cpuSeconds') / wall),
      serverMain: perReport(d('mainThreadCpuSeconds') / wall),
      postgres: perReport(postgresCores),
      bench: perReport(benchCores),
    },
  };
  const loop = d('loopActiveMs') / Math.max(1, d('loopActiveMs') + d('loopIdleMs'));
  const other = [...statuses].filter(([code]) => code !== 200);
  console.log(
    `${name}: ${fmt(result.reportsPerS)} reports/s (${fmt(result.reportsPerS * samplesPerReport)} samples/s), ` +
      `p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms` +
      `${other.length ? ` [${other.map(([code, n]) => `${code || 'network error'}: ${n}`).join(', ')}]` : ''}; load ${load()}`,
  );
  console.log(
    `    server ${(d('cpuSeconds') / wall).toFixed(2)} cores (${((d('cpuSeconds') * 1000) / Math.max(1, reports)).toFixed(2)} ms CPU a report, ` +
      `main thread ${((d('mainThreadCpuSeconds') * 1000) / Math.max(1, reports)).toFixed(2)} ms), ` +
      `event loop ${(loop * 100).toFixed(0)} % busy, PostgreSQL ${postgresCores.toFixed(2)} cores, ` +
      `bench ${benchCores.toFixed(2)} cores, rss ${(after.at.rss / 1048576).toFixed(0)} MiB; ` +
      `${d('statements') ? `${(d('requests') / d('statements')).toFixed(1)} requests, ${fmt(result.samplesPerStatement)} samples, ${((d('statementSeconds') * 1000) / d('statements')).toFixed(1)} ms a statement` : 'no statements'}`,
  );
  if (written) console.log(writtenLine(written, writtenLate));
  return result;
}

/** `bench ingest` with its command-line arguments (npm run bench -- ingest …). */
export async function benchIngest(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      systems: { type: 'string', default: '300' },
      seconds: { type: 'string', default: '15' },
      rounds: { type: 'string', default: '3' },
      rate: { type: 'string', default: '2000' },
      gzip: { type: 'boolean', default: true },
      'fresh-tokens': { type: 'boolean', default: true },
      baseline: { type: 'string' },
      profile: { type: 'string' },
      connections: { type: 'string', default: '4' },
      prometheus: { type: 'boolean', default: true },
      containers: { type: 'string', default: '0' },
      'node-args': { type: 'string', default: '' },
      'write-ahead': { type: 'boolean', default: true },
      processes: { type: 'string', default: '1' },
    },
    allowNegative: true,
  });
  const systems = Number(values.systems);
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  const connections = Number(values.connections);
  const nodeArgs = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
  const own = values['node-args'] ? values['node-args'].split(' ') : [];
  const argsOf = (label: string) => (label === 'Argus' ? [...nodeArgs, ...own] : nodeArgs);
  // the per-cluster enrolment limit counts new systems per hour: 100 systems a cluster stays far below it
  const clusters = Math.ceil(systems / 100);
  const run = `bench${Date.now().toString(36)}`;

  const contenders: Contender[] = [];
  const ceilingDb = await createTestDatabase();
  const statementDb = await createTestDatabase();
  const admin = new pg.Client({ connectionString: ceilingDb.url });
  const statementAdmin = new pg.Client({ connectionString: statementDb.url });
  await admin.connect();
  await statementAdmin.connect();
  const ceiling = await openCeiling(ceilingDb.url, { connections, systems });
  const statement = await openCeiling(statementDb.url, { connections, systems, statement: 'argus' });
  let peer: Peer | null = null;
  try {
    peer = await openPeer(values.prometheus, systems, run);
    for (const [label, checkout] of [
      ['Argus', undefined],
      ['baseline', values.baseline],
    ] as const) {
      if (label === 'baseline' && !checkout) continue;
      const server = await startArgusServer({
        clusters,
        nodeArgs: argsOf(label),
        ...(checkout ? { checkout } : {}),
        processes: label === 'Argus' ? Number(values.processes) : 1,
      });
      const agents = Array.from(
        { length: systems },
        (_, i) =>
          new SimulatedAgent({
            url: webhookUrl(server.url),
            secret: server.secret,
            enrollment: server.enrollmentKeys[Math.floor(i / 100)] as string,
            sub: `${run}-${label}-${i}`,
            hostname: `${run}-host-${i}`,
            seed: i + 1,
            gzip: values.gzip,
            containers: Number(values.containers),
            freshTokens: values['fresh-tokens'],
          }),
      );
      contenders.push({ label, server, agents, saturated: [], paced: [], ratios: [], peerRatios: [] });
    }
    const samplesPerReport = contenders[0]?.agents[0]?.host.sample(Date.now()).length ?? 0;
    const writeAhead = values['write-ahead'];
    // written ahead for 1.3 × the best rate the contender has reached so far (more are written as needed)
    const best = new Map<Contender, number>();
    const phaseOptions = (contender: Contender): PhaseOptions =>
      writeAhead ? { prepared: { expectedRate: Math.max(4000, 1.3 * (best.get(contender) ?? 0)) } } : {};
    const reached = (contender: Contender, phase: PhaseResult) =>
      best.set(contender, Math.max(best.get(contender) ?? 0, phase.reportsPerS));
    console.log(
      `bench ingest: the real server (NODE_ENV=production) ${contenders.map((c) => c.label).join(' and ')}, ` +
        `${systems} agents, ${samplesPerReport}-sample reports${values.gzip ? ', gzip' : ', plain JSON'}${values['fresh-tokens'] ? ', a new token a request' : ', a token reused'}, ${seconds} s phases, ` +
        `${values.rounds} rounds; ${writeAhead ? 'requests written ahead of each phase, sent on one raw keep-alive connection a sender' : 'requests written and sent by each agent as it goes (node:http)'}; ceiling on ${connections} connections` +
        `${peer ? `; Prometheus (remote write, snappy protobuf, one report a request, ${systems} senders)` : ''}; ` +
        // /api/metrics answers from one process: its statements are that process's
        `${Number(values.processes) > 1 ? `Argus in ${values.processes} processes (statements: one process's); ` : ''}` +
        `${os.cpus().length} cores, load ${load()}`,
    );
    // enrolment: every agent's first report binds its system (and warms the server up)
    // on a busy machine an enrolment can fail (a 500 when its statement times out): the warm-up is
    // repeated a few times, since only an enrolled agent's requests can be written ahead
    for (const contender of contenders) {
      for (let attempt = 1; attempt <= 3; attempt++) {
        reached(contender, await argusPhase(`${contender.label} warm-up`, contender, 5, null, samplesPerReport));
        const unbound = contender.agents.filter((a) => !a.agentKey).length;
        if (!unbound) break;
        console.log(`warning: ${unbound} agents did not enrol`);
      }
    }
    if (peer) await peerPhase('Prometheus warm-up', peer, 5, writeAhead);

    const ceilings: number[] = [];
    const ceilingCpu: CpuPerReport[] = [];
    const statements: number[] = [];
    for (let round = 1; round <= Number(values.rounds); round++) {
      // saturated phases back to back (the checkouts in turn first), the paced ones, then the ceilings: a
      // ceiling's millions of rows leave PostgreSQL writing after it, which must not fall on Argus's phases
      const order = round % 2 ? contenders : [...contenders].reverse();
      for (const contender of order) {
        const saturated = await argusPhase(
          `round ${round} ${contender.label} saturated`,
          contender,
          seconds,
          null,
          samplesPerReport,
          phaseOptions(contender),
        );
        reached(contender, saturated);
        contender.saturated.push(saturated);
      }
      if (peer) {
        const phase = await peerPhase(`round ${round} Prometheus saturated`, peer, seconds, writeAhead);
        peer.phases.push(phase);
        for (const contender of contenders) {
          contender.peerRatios.push((contender.saturated.at(-1)?.reportsPerS ?? 0) / Math.max(1e-9, phase.reportsPerS));
          console.log(`    ${contender.label}/Prometheus: ${contender.peerRatios.at(-1)?.toFixed(2)}`);
        }
      }
      if (rate > 0) {
        for (const contender of order) {
          contender.paced.push(
            await argusPhase(
              `round ${round} ${contender.label} paced at ${rate}/s`,
              contender,
              seconds,
              rate,
              samplesPerReport,
              phaseOptions(contender),
            ),
          );
        }
      }
      let batchRows = samplesPerReport;
      for (const contender of contenders) {
        const saturated = contender.saturated.at(-1) as PhaseResult;
        batchRows = Math.max(samplesPerReport, Math.round(saturated.samplesPerStatement));
        const { rowsPerS, cpu } = await ceilingPhase(
          `round ${round} ceiling (${contender.label}'s statements)`,
          ceiling,
          ceilingDb,
          admin,
          seconds,
          batchRows,
          samplesPerReport,
        );
        ceilings.push(rowsPerS);
        ceilingCpu.push(cpu);
        contender.ratios.push((saturated.reportsPerS * samplesPerReport) / rowsPerS);
        console.log(`    ${contender.label}/ceiling: ${contender.ratios.at(-1)?.toFixed(2)}`);
      }
      const alone = await ceilingPhase(
        `round ${round} Argus's statement alone`,
        statement,
        statementDb,
        statementAdmin,
        seconds,
        batchRows,
        samplesPerReport,
      );
      statements.push(alone.rowsPerS / (ceilings.at(-1) ?? alone.rowsPerS));
    }

    console.log(`\nsummary (medians of ${values.rounds} rounds; load now ${load()}):`);
    console.log(
      `  ceiling: ${fmt(median(ceilings))} samples/s; Argus's statement alone: ${median(statements).toFixed(2)} of it`,
    );
    for (const c of contenders) {
      const rss = (await c.server.snapshot()).at.rss;
      console.log(
        `  ${c.label}: saturated ${fmt(median(c.saturated.map((p) => p.reportsPerS)))} reports/s, ` +
          `Argus/ceiling ${median(c.ratios).toFixed(2)} (${c.ratios.map((r) => r.toFixed(2)).join(', ')})` +
          (c.paced.length
            ? `; paced at ${rate}/s p50 ${median(c.paced.map((p) => p.p50)).toFixed(1)} ms, p99 ${median(c.paced.map((p) => p.p99)).toFixed(1)} ms (${c.paced.map((p) => p.p99.toFixed(0)).join(', ')})`
            : '') +
          (c.paced.length
            ? `, server CPU a report paced ${median(c.paced.map((p) => p.cpu.server)).toFixed(2)} ms (main thread ${median(c.paced.map((p) => p.cpu.serverMain ?? 0)).toFixed(2)})`
            : '') +
          `; rss ${(rss / 1048576).toFixed(0)} MiB, ${fmt(await c.server.storedSamples())} samples stored`,
      );
      console.log(cpuAccount(c.label, medianCpu(c.saturated.map((p) => p.cpu)), medianCpu(ceilingCpu)));
    }
    if (peer) {
      const rows = contenders.map((c) => ({
        label: c.label,
        ratios: c.peerRatios,
        ...medianCpu(c.saturated.map((p) => p.cpu)),
      }));
      for (const line of peerSummary(peer, rows)) console.log(line);
    }
  } finally {
    await peer?.prometheus.stop();
    for (const contender of contenders) await contender.server.stop();
    await ceiling.close();
    await statement.close();
    await admin.end();
    await statementAdmin.end();
    await ceilingDb.drop();
    await statementDb.drop();
  }
}

if (isMain(import.meta.url)) await benchIngest(process.argv.slice(2));
