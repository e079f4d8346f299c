/**
 * `bench replay` (issue 15 item 2): N simulated agents (ops/agent-sim, all in this process) report
 * every 30 s to the real server (backend/src/main.ts in production mode, its own process, a
 * throwaway PostgreSQL database, a private redis-server). Argus is away for 30 minutes, then every
 * agent replays its buffer while the fleet's live reports keep coming. Prints what was lost (samples
 * in the database against those made), duplicates, latency of live and replayed requests during
 * the replay, the server's RSS through the run, the replay's duration and the load average.
 * Figures only; nothing passes or fails.
 *
 *   npm run bench -- replay [--agents 10000] [--interval 30] [--outage-minutes 30] [--duplicates 0.02]
 *
 * The outage is compressed, not waited: the agents report live for one interval (warm-up), are cut
 * off for one interval (they buffer what they collect, really), and at the recovery each finds in
 * its buffer the rest of what it would have collected in the outage, one report per interval
 * timestamped over the outage's minutes (the agents' clock is faked for those reports only; the
 * server's is real). The backlog's samples are drawn when sent (agent-sim `backfill`). A share of
 * the agents (`--duplicates`) resends its previous request with each request, as an agent whose
 * answer was lost does. A request is "live" when its oldest report is at most two intervals old.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { isMain } from '../../db/is-main.js';
import { randomToken, sha256 } from '../../backend/src/lib/crypto.js';
import { createCustomer } from '../../backend/src/testing/accounts.js';
import { createTestDatabase } from '../../backend/src/testing/database.js';
import { startPrivateRedis } from '../../backend/src/testing/redis.js';
import { SimulatedAgent, type SendResult } from '../agent-sim/agent.js';
import { webhookUrl } from '../agent-sim/main.js';
import { spawnRealServer, type RealServer } from './real-server.js';

interface Window {
  name: string;
  live: number[];
  replayed: number[];
  statuses: Map<number, number>;
  accepted: number;
  duplicates: number;
}

const newWindow = (name: string): Window => ({
  name,
  live: [],
  replayed: [],
  statuses: new Map(),
  accepted: 0,
  duplicates: 0,
});
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function describeWindow(w: Window): string {
  const ms = (values: number[]) =>
    values.length
      ? `${values.length} requests, p50 ${percentile(values, 50).toFixed(0)} ms, p99 ${percentile(values, 99).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`
      : 'none';
  const statuses = [...w.statuses].map(([code, n]) => `${code || 'network error'}: ${n}`).join(', ');
  return (
    `${w.name}: live ${ms(w.live)}; replayed ${ms(w.replayed)}\n` +
    `  answers ${statuses || 'none'}; reports accepted ${w.accepted}, duplicates ${w.duplicates}`
  );
}

/** N systems bound to agent keys, as after their first reports (enrolment is item 1's subject). */
async function fleet(knex: Awaited<ReturnType<typeof createTestDatabase>>['knex'], count: number, run: string) {
  const customerId = await createCustomer(knex, 'Replay bench');
  const [cluster] = await knex('clusters')
    .insert({ customer_id: customerId, name: 'replay', enrollment_key: randomToken(16) })
    .returning<{ id: number }[]>('id');
  const keys = Array.from({ length: count }, () => randomToken(32));
  for (let from = 0; from < count; from += 1000) {
    await knex('systems').insert(
      keys.slice(from, from + 1000).map((ak, offset) => ({
        customer_id: customerId,
        cluster_id: cluster?.id,
        name: `${run}-host-${from + offset}`,
        agent_id: `${run}-${from + offset}`,
        agent_key_hash: sha256(ak),
        status: 'ONLINE',
      })),
    );
  }
  return keys;
}

export async function benchReplay(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      agents: { type: 'string', default: '10000' },
      interval: { type: 'string', default: '30' },
      'outage-minutes': { type: 'string', default: '30' },
      duplicates: { type: 'string', default: '0.02' },
    },
  });
  const count = Number(values.agents);
  const intervalMs = Number(values.interval) * 1000;
  const outageMs = Number(values['outage-minutes']) * 60_000;
  const backlogPerAgent = Math.round(outageMs / intervalMs);
  console.log(
    `bench replay: ${count} agents every ${intervalMs / 1000} s, Argus away ${outageMs / 60_000} min ` +
      `(${backlogPerAgent} reports buffered per agent), ${Number(values.duplicates) * 100}% resending ` +
      `their previous request; load average ${load()}`,
  );

  const db = await createTestDatabase();
  const redis = await startPrivateRedis();
  let server: RealServer | null = null;
  const lag = monitorEventLoopDelay({ resolution: 10 });
  try {
    const run = `replay${Date.now().toString(36)}`;
    const keys = await fleet(db.knex, count, run);
    server = await spawnRealServer({ databaseUrl: db.url, redisUrl: redis.url });
    const url = webhookUrl(server.url);
    const secret = server.webhookSecret;
    const agents = keys.map(
      (agentKey, i) =>
        new SimulatedAgent({
          url,
          secret,
          sub: `${run}-${i}`,
          hostname: `${run}-host-${i}`,
          seed: i + 1,
          gzip: true,
          agentKey,
        }),
    );
    const samplesPerReport = new SimulatedAgent({ url, secret, sub: 'x', hostname: 'x', seed: 1 }).host.sample(
      Date.now(),
    ).length;
    const made = new Array<number>(count).fill(0);
    const warmupTimes = agents.map(() => new Set<number>());
    const inFlight = new Array<boolean>(count).fill(false);
    let collecting = true;
    let phase: 'warm-up' | 'outage' | 'replay' | 'after' | 'drain' = 'warm-up';
    const windows = {
      before: newWindow('warm-up (before the outage)'),
      replay: newWindow('during the replay'),
      after: newWindow('after the replay'),
    };
    let current = windows.before;

    const record = (w: Window, result: SendResult, now: number) => {
      w.statuses.set(result.status, (w.statuses.get(result.status) ?? 0) + 1);
      if (result.status !== 200) return;
      (result.oldestMs >= now - 2 * intervalMs ? w.live : w.replayed).push(result.ms);
      w.accepted += result.accepted ?? 0;
      w.duplicates += result.duplicates ?? 0;
    };

    // each agent ticks every interval, the fleet spread over it; one request in flight per agent
    const tick = async (i: number) => {
      const agent = agents[i] as SimulatedAgent;
      const now = Date.now();
      if (collecting) {
        agent.collect(now);
        made[i] = (made[i] ?? 0) + 1;
        if (phase === 'warm-up') warmupTimes[i]?.add(now);
      }
      if (inFlight[i]) return;
      inFlight[i] = true;
      const w = current;
      try {
        const result = await agent.send(now);
        if (result) record(w, result, now);
      } finally {
        inFlight[i] = false;
      }
    };
    const timers: NodeJS.Timeout[] = [];
    const started = Date.now();
    agents.forEach((_, i) => {
      timers.push(
        setTimeout(
          () => {
            void tick(i);
            timers.push(setInterval(() => void tick(i), intervalMs));
          },
          Math.floor((i / count) * intervalMs),
        ),
      );
    });
    lag.enable();
    const rssNow = () => server?.rss.at(-1)?.bytes ?? 0;
    const status = setInterval(() => {
      const backlog = agents.reduce((sum, a) => sum + a.backlogged, 0);
      const waiting = agents.filter((a) => a.backlogged > 0).length;
      const refused = current.statuses.get(429) ?? 0;
      console.log(
        `  ${((Date.now() - started) / 1000).toFixed(0)} s ${phase}: backlog ${backlog} reports at ${waiting} agents; ` +
          `429s ${refused}; server rss ${mib(rssNow())}; load ${load()}; generator loop delay p99 ` +
          `${(lag.percentile(99) / 1e6).toFixed(0)} ms`,
      );
      lag.reset();
    }, intervalMs);

    await sleep(intervalMs);
    const rssBefore = rssNow();
    phase = 'outage';
    for (const agent of agents) agent.setFault('offline');
    const cutAt = Date.now();
    await sleep(intervalMs);

    // the recovery: each agent's buffer holds what the outage's minutes made
    const recovery = Date.now();
    agents.forEach((agent, i) => {
      const offset = Math.floor((i / count) * intervalMs);
      const times: number[] = [];
      for (let k = 0; times.length < backlogPerAgent - agent.buffered; k++) {
        let ms = recovery - outageMs + k * intervalMs + offset;
        while (warmupTimes[i]?.has(ms)) ms += 1; // the warm-up's times are within the outage's minutes
        if (ms < cutAt) times.push(ms);
        else break;
      }
      agent.backfill(times);
      made[i] = (made[i] ?? 0) + times.length;
      agent.setFault(i < Math.round(count * Number(values.duplicates)) ? 'replay' : null);
    });
    phase = 'replay';
    current = windows.replay;
    console.log(`  recovery: ${agents.reduce((sum, a) => sum + a.buffered, 0)} reports buffered`);
    while (agents.some((agent) => agent.backlogged > 0)) await sleep(200);
    const replaySeconds = (Date.now() - recovery) / 1000;
    const rssAtReplayEnd = rssNow();

    phase = 'after';
    current = windows.after;
    await sleep(intervalMs);
    phase = 'drain';
    collecting = false;
    const drainDeadline = Date.now() + 10 * intervalMs;
    while ((agents.some((a) => a.buffered > 0) || inFlight.some(Boolean)) && Date.now() < drainDeadline)
      await sleep(200);
    for (const timer of timers) clearInterval(timer);
    clearInterval(status);
    lag.disable();
    while (inFlight.some(Boolean)) await sleep(100);
    const rss = server.rss.filter((r) => r.at >= started);

    // what the database holds, per system, against what each agent made
    const rows = await db.knex.raw<{ rows: { agent_id: string; n: string }[] }>(
      'SELECT s.agent_id, count(m.*) AS n FROM systems s LEFT JOIN metrics m ON m.system_id = s.id GROUP BY s.agent_id',
    );
    const stored = new Map(rows.rows.map((row) => [row.agent_id, Number(row.n)]));
    let expected = 0;
    let missing = 0;
    let extra = 0;
    agents.forEach((_, i) => {
      const want = (made[i] ?? 0) * samplesPerReport;
      const have = stored.get(`${run}-${i}`) ?? 0;
      expected += want;
      if (have < want) missing += want - have;
      if (have > want) extra += have - want;
    });
    const accepted = Object.values(windows).reduce((sum, w) => sum + w.accepted, 0);
    const duplicates = Object.values(windows).reduce((sum, w) => sum + w.duplicates, 0);
    const left = agents.reduce((sum, a) => sum + a.buffered, 0);

    console.log(
      `\n${describeWindow(windows.before)}\n${describeWindow(windows.replay)}\n${describeWindow(windows.after)}`,
    );
    console.log(
      `replay: ${replaySeconds.toFixed(0)} s from the recovery until the last agent's backlog was stored ` +
        `(${count * backlogPerAgent} buffered reports)`,
    );
    console.log(
      `samples: ${expected} made, ${expected - missing + extra} in the database: ${missing} missing, ${extra} extra; ` +
        `reports accepted ${accepted} (made ${made.reduce((a, b) => a + b, 0)}), duplicates answered 200: ${duplicates}; ` +
        `still buffered at the end: ${left}`,
    );
    const minute = rss.filter((_, i) => i % 60 === 0).map((r) => mib(r.bytes));
    console.log(
      `server rss: ${mib(rssBefore)} after the warm-up, ${mib(rssAtReplayEnd)} at the replay's end, ` +
        `${mib(rss.at(-1)?.bytes ?? 0)} at the end, max ${mib(Math.max(...rss.map((r) => r.bytes)))}; ` +
        `each minute: ${minute.join(', ')}`,
    );
    console.log(`load average at the end: ${load()}`);
  } finally {
    await server?.stop();
    await redis.stop();
    await db.drop();
  }
}

if (isMain(import.meta.url)) await benchReplay(process.argv.slice(2));
