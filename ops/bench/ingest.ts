/**
 * `bench ingest` (issue 4 item 8): N simulated agents (ops/agent-sim) send
 * 60-sample reports to POST /api/webhook/metrics; prints reports/s, samples/s,
 * p50/p99 latency and the server's RSS, then the ceiling: the same kind of rows
 * inserted straight into PostgreSQL (unnest, 4 connections, no HTTP), Argus's
 * own group-commit statement with the same rows and connections (the database's
 * share of the gap), and Argus/ceiling. Figures only; nothing passes or fails.
 *
 *   node_modules/.bin/tsx ops/bench/ingest.ts [--systems 200] [--duration 20] [--rate 1000] [--gzip]
 *     [--paced-only] [--lanes 2] [--window-ms 4] [--ceiling-seconds 10]
 *   node_modules/.bin/tsx ops/bench/ingest.ts --url http://host:3000 --secret S --enrollment K [...]
 *
 * Without --url it starts ops/bench/ingest-server.ts as its own process (the
 * ingest router on a small Koa app, a throwaway database, real Redis).
 * Phases: "saturation" (every agent sends again as soon as it is answered) and
 * "paced" (--rate reports/s in total, 0 skips it).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { isMain } from '../../db/is-main.js';
import { webhookUrl } from '../agent-sim/main.js';
import { SimulatedAgent } from '../agent-sim/agent.js';
import { createTestDatabase, databaseUrl } from '../../backend/src/testing/database.js';
import { spawnIngestBenchServer, type BenchServerInfo, type ServerStats } from './ingest-server.js';
import { measureCeiling } from './ingest-ceiling.js';

interface Phase {
  name: string;
  seconds: number;
  reports: number;
  latencies: number[];
  statuses: Map<number, number>;
  writer: { statements: number; requests: number; rows: number; statementMs: number };
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function runPhase(
  name: string,
  agents: SimulatedAgent[],
  seconds: number,
  rate: number | null,
  stats: () => ServerStats | null,
): Promise<Phase> {
  const phase: Phase = {
    name,
    seconds,
    reports: 0,
    latencies: [],
    statuses: new Map(),
    writer: { statements: 0, requests: 0, rows: 0, statementMs: 0 },
  };
  await new Promise((resolve) => setTimeout(resolve, 1100)); // a fresh stats line
  const before = stats()?.writer;
  const started = performance.now();
  const until = started + seconds * 1000;
  const period = rate ? (agents.length / rate) * 1000 : 0;
  const lastTs = new Map<SimulatedAgent, number>();
  await Promise.all(
    agents.map(async (agent, i) => {
      let next = started + (period * i) / agents.length;
      while (performance.now() < until) {
        if (period) {
          const wait = next - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          next += period;
        }
        const ts = Math.max(Date.now(), (lastTs.get(agent) ?? 0) + 1);
        lastTs.set(agent, ts);
        agent.collect(ts);
        const result = await agent.send(ts);
        if (!result) continue;
        phase.statuses.set(result.status, (phase.statuses.get(result.status) ?? 0) + 1);
        if (result.status === 200) {
          phase.reports += result.accepted ?? 0;
          phase.latencies.push(result.ms);
        }
      }
    }),
  );
  phase.seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const after = stats()?.writer;
  if (before && after) {
    phase.writer = {
      statements: after.statements - before.statements,
      requests: after.requests - before.requests,
      rows: after.rows - before.rows,
      statementMs: after.statementMs - before.statementMs,
    };
  }
  return phase;
}

function print(phase: Phase, samplesPerReport: number): number {
  const sorted = [...phase.latencies].sort((a, b) => a - b);
  const reportsPerS = phase.reports / phase.seconds;
  const statuses = [...phase.statuses].map(([code, n]) => `${code || 'network error'}: ${n}`).join(', ');
  console.log(
    `${phase.name}: ${reportsPerS.toFixed(0)} reports/s, ${(reportsPerS * samplesPerReport).toFixed(0)} samples/s, ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (${statuses})`,
  );
  if (phase.writer.statements) {
    console.log(
      `  group commit: ${phase.writer.statements} statements for ${phase.writer.requests} requests ` +
        `(${(phase.writer.requests / phase.writer.statements).toFixed(1)} requests, ` +
        `${(phase.writer.rows / phase.writer.statements).toFixed(0)} samples per statement, ` +
        `${(phase.writer.statementMs / phase.writer.statements).toFixed(1)} ms per statement)`,
    );
  }
  return reportsPerS * samplesPerReport;
}

/** `bench ingest` with its command-line arguments (npm run bench -- ingest …). */
export async function benchIngest(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      secret: { type: 'string' },
      enrollment: { type: 'string' },
      systems: { type: 'string', default: '200' },
      duration: { type: 'string', default: '20' },
      rate: { type: 'string', default: '1000' },
      gzip: { type: 'boolean', default: false },
      // a long memory run: only the paced phase (e.g. --duration 600 --paced-only)
      'paced-only': { type: 'boolean', default: false },
      // group-commit tuning of the started server (defaults: the app's)
      lanes: { type: 'string' },
      'window-ms': { type: 'string' },
      'ceiling-seconds': { type: 'string', default: '10' },
    },
  });
  const systems = Number(values.systems);
  const seconds = Number(values.duration);
  const rate = Number(values.rate);
  const server = values.url
    ? null
    : await spawnIngestBenchServer(systems, {
        ...(values.lanes ? { lanes: Number(values.lanes) } : {}),
        ...(values['window-ms'] ? { windowMs: Number(values['window-ms']) } : {}),
      });
  const info: BenchServerInfo = server?.info ?? {
    url: values.url as string,
    secret: values.secret ?? process.env['WEBHOOK_SECRET'] ?? '',
    database: '',
    enrollmentKeys: values.enrollment ? [values.enrollment] : [],
  };
  const stats = server ? server.stats : () => null;
  const run = `bench${Date.now().toString(36)}`;
  const agents = Array.from(
    { length: systems },
    (_, i) =>
      new SimulatedAgent({
        url: webhookUrl(info.url),
        secret: info.secret,
        enrollment: info.enrollmentKeys[Math.floor(i / 100) % Math.max(1, info.enrollmentKeys.length)] as string,
        sub: `${run}-${i}`,
        hostname: `${run}-host-${i}`,
        seed: i + 1,
        gzip: values.gzip,
      }),
  );
  const samplesPerReport = agents[0]?.host.sample(Date.now()).length ?? 0;
  console.log(
    `bench ingest: ${systems} agents, ${samplesPerReport}-sample reports, ${seconds} s per phase` +
      `${values.gzip ? ', gzip' : ''}${server ? '' : `, against ${info.url}`}`,
  );

  // enrolment: every agent's first report binds its system (and warms the server up)
  await runPhase('warm-up', agents, 3, null, stats);
  const unbound = agents.filter((a) => !a.agentKey).length;
  if (unbound) console.log(`warning: ${unbound} agents did not enrol`);
  const rssStart = stats()?.rss;

  let measured: Phase | null = null;
  let argusSamplesPerS = 0;
  if (!values['paced-only']) {
    measured = await runPhase('saturation', agents, seconds, null, stats);
    argusSamplesPerS = print(measured, samplesPerReport);
  }
  if (rate > 0) {
    const paced = await runPhase(`paced at ${rate} reports/s`, agents, seconds, rate, stats);
    const samplesPerS = print(paced, samplesPerReport);
    if (!measured) [measured, argusSamplesPerS] = [paced, samplesPerS];
  }

  if (server) {
    const rss = server.rss();
    console.log(
      `server memory: rss ${mib(rssStart ?? 0)} after warm-up, ${mib(rss[rss.length - 1] ?? 0)} at the end, ` +
        `max ${mib(Math.max(...rss))}; heap ${mib(stats()?.heapUsed ?? 0)}`,
    );
    if (rss.length > 120)
      console.log(
        `  rss each minute: ${rss
          .filter((_, i) => i % 60 === 0)
          .map(mib)
          .join(', ')}`,
      );
    const client = new pg.Client({ connectionString: databaseUrl(info.database) });
    await client.connect();
    const size = await client.query<{ bytes: string; rows: string }>(
      "SELECT pg_total_relation_size('metrics') AS bytes, (SELECT count(*) FROM metrics) AS rows",
    );
    await client.end();
    const { bytes, rows } = size.rows[0] ?? { bytes: '0', rows: '0' };
    console.log(
      `stored: ${rows} samples, ${(Number(bytes) / Math.max(1, Number(rows))).toFixed(0)} bytes per sample (raw table + indexes, plain PostgreSQL)`,
    );
    await server.stop();
  }

  const batchRows = measured?.writer.statements
    ? Math.max(samplesPerReport, Math.round(measured.writer.rows / measured.writer.statements))
    : 3000;
  const ceilingOptions = { seconds: Number(values['ceiling-seconds']), connections: 4, batchRows, systems };
  const ceiling = await onThrowawayDatabase((url) => measureCeiling(url, ceilingOptions));
  console.log(
    `ceiling: ${ceiling.rowsPerS.toFixed(0)} samples/s straight into PostgreSQL ` +
      `(unnest, 4 connections, ${batchRows} rows per statement, no HTTP)`,
  );
  // the same rows through Argus's own statement, no HTTP: the database's share of the gap
  const statement = await onThrowawayDatabase((url) => measureCeiling(url, { ...ceilingOptions, statement: 'argus' }));
  console.log(
    `Argus's group-commit statement alone: ${statement.rowsPerS.toFixed(0)} samples/s ` +
      `(same rows and connections, no HTTP; ${(statement.rowsPerS / ceiling.rowsPerS).toFixed(2)} of the ceiling)`,
  );
  console.log(`Argus/ceiling: ${(argusSamplesPerS / ceiling.rowsPerS).toFixed(2)}`);
}

async function onThrowawayDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const db = await createTestDatabase();
  await db.knex.destroy();
  try {
    return await fn(db.url);
  } finally {
    await db.drop();
  }
}

if (isMain(import.meta.url)) await benchIngest(process.argv.slice(2));
