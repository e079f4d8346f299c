/**
 * `npm run bench -- checks --agents`: network checks run by agents, on the real server (`npm start`'s
 * process, production mode, ops/bench/argus-server.ts). Agents in groups of three each run the same
 * checks (every check from three places, the default quorum: two must see it down) and send each
 * run with their next report, as the argus-agent does; a run is down now and then (`--down`), so
 * the quorum turns checks DOWN and UP again. Each round sends the same reports (saturated, or
 * `--rate` reports/s in all, so both keep the same group commits), without check runs (the peer:
 * what a report costs anyway) and with N runs each, one phase after the other,
 * so a slow spell of this shared machine lowers both. Prints, per phase and as medians, the
 * server's and PostgreSQL's CPU a report, what each check run adds, the runs recorded (each one a
 * quorum decision of its check) and the checks whose state turned. Figures only.
 *
 *   npm run bench -- checks --agents [--systems 99] [--runs 10,40] [--seconds 10] [--rounds 3] [--down 0.2]
 *     [--rate 40]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createKnex } from '../../db/connection.js';
import { createChecksRepo } from '../../backend/src/checks/repo.js';
import { agentTcpCheck } from '../../backend/src/testing/check-rig.js';
import { webhookUrl } from '../agent-sim/main.js';
import { SimulatedAgent } from '../agent-sim/agent.js';
import { startArgusServer } from './argus-server.js';
import { argusPhase, type Contender, type PhaseResult } from './ingest.js';
import { median } from './statistics.js';

const cpuOf = (phase: PhaseResult) => phase.cpu.server + phase.cpu.postgres;

/** Each report's `checks`: a run of each of `ids` at the report's time, down with probability `down`. */
function runsOf(ids: number[], down: number): (ts: string) => string {
  return (ts) =>
    JSON.stringify(
      ids.map((id) => {
        const up = Math.random() >= down;
        return {
          id,
          at: ts,
          up,
          reason: up ? null : 'connection refused',
          responseMs: up ? 5 + Math.random() * 20 : null,
          status: null,
          keywordMatched: null,
          certDaysLeft: null,
          certValid: null,
          packetLossPct: null,
        };
      }),
    );
}

export async function benchAgentChecks(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      agents: { type: 'boolean', default: true },
      systems: { type: 'string', default: '99' },
      runs: { type: 'string', default: '10,40' },
      seconds: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '3' },
      down: { type: 'string', default: '0.2' },
      rate: { type: 'string', default: '0' },
    },
  });
  const groups = Math.floor(Number(values.systems) / 3);
  const systems = groups * 3;
  const variants = [0, ...values.runs.split(',').map(Number)];
  const most = Math.max(...variants);
  const seconds = Number(values.seconds);
  const rate = Number(values.rate) || null;
  const run = `checks${Date.now().toString(36)}`;
  const server = await startArgusServer({ clusters: Math.ceil(systems / 100) });
  const knex = createKnex({ url: server.databaseUrl, poolMax: 2 });
  try {
    const agents = Array.from(
      { length: systems },
      (_, i) =>
        new SimulatedAgent({
          url: webhookUrl(server.url),
          secret: server.secret,
          enrollment: server.enrollmentKeys[Math.floor(i / 100)] as string,
          sub: `${run}-${i}`,
          hostname: `${run}-host-${i}`,
          seed: i + 1,
          gzip: true,
          freshTokens: true,
        }),
    );
    const contender: Contender = {
      label: 'Argus',
      server,
      agents,
      saturated: [],
      paced: [],
      ratios: [],
      peerRatios: [],
    };
    const samplesPerReport = agents[0]?.host.sample(Date.now()).length ?? 0;
    console.log(
      `bench checks --agents: the real server (NODE_ENV=production), ${systems} agents in ${groups} groups of 3, ` +
        `${samplesPerReport}-sample reports, gzip, a new token a request; ${most} checks a group, each run from its 3 ` +
        `agents (quorum 2), a run down with probability ${values.down}; ${rate ? `${rate} reports/s` : 'saturated'}, ${seconds} s phases, ${values.rounds} rounds; ` +
        `${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)}`,
    );
    await argusPhase('warm-up (enrolment)', contender, 5, null, samplesPerReport);

    // the checks of each group of three agents, in the server's database as the API would store them
    const rows = (await knex('systems')
      .where('hostname', 'like', `${run}-host-%`)
      .select('id', 'hostname', 'customer_id')) as {
      id: number;
      hostname: string;
      customer_id: number;
    }[];
    const systemOf = new Map(rows.map((r) => [r.hostname, r]));
    const repo = createChecksRepo(knex);
    const checksOfGroup: number[][] = [];
    await knex.transaction(async (trx) => {
      for (let g = 0; g < groups; g++) {
        const places = [0, 1, 2].map((k) => systemOf.get(`${run}-host-${g * 3 + k}`));
        if (places.some((p) => !p)) throw new Error(`group ${g}: an agent did not enrol`);
        const ids: number[] = [];
        for (let c = 0; c < most; c++)
          ids.push(
            await repo.insert(
              agentTcpCheck(
                places[0]?.customer_id as number,
                `vpn ${g}-${c}`,
                places.map((p) => p?.id as number),
              ),
              trx,
            ),
          );
        checksOfGroup.push(ids);
      }
    });
    const allChecks = checksOfGroup.flat();

    const byVariant = new Map<number, PhaseResult[]>(variants.map((n) => [n, []]));
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const n of variants) {
        agents.forEach((agent, i) => {
          const ids = checksOfGroup[Math.floor(i / 3)]?.slice(0, n) ?? [];
          agent.checkRuns = n ? runsOf(ids, Number(values.down)) : null;
        });
        const startedAt = new Date();
        const runsBefore = await knex('metrics').whereIn('system_id', allChecks).count<{ n: string }[]>({ n: '*' });
        const phase = await argusPhase(
          `round ${round}, ${n} check runs a report`,
          contender,
          seconds,
          rate,
          samplesPerReport,
        );
        byVariant.get(n)?.push(phase);
        if (!n) continue;
        const runsAfter = await knex('metrics').whereIn('system_id', allChecks).count<{ n: string }[]>({ n: '*' });
        const turned = await knex('checks')
          .whereIn('id', allChecks)
          .where('state_since', '>=', startedAt)
          .count<{ n: string }[]>({ n: '*' });
        const recorded = Number(runsAfter[0]?.n ?? 0) - Number(runsBefore[0]?.n ?? 0);
        console.log(
          `    check runs recorded (each a quorum decision): ${recorded} (${(recorded / seconds).toFixed(0)}/s); ` +
            `checks whose state turned: ${turned[0]?.n} of ${allChecks.length}`,
        );
      }
    }

    const peer = median((byVariant.get(0) ?? []).map(cpuOf));
    console.log(
      `medians, server + PostgreSQL CPU a report: without check runs (the peer) ${peer.toFixed(2)} ms ` +
        `(${median((byVariant.get(0) ?? []).map((p) => p.reportsPerS)).toFixed(0)} reports/s)`,
    );
    for (const n of variants.filter((v) => v > 0)) {
      const phases = byVariant.get(n) ?? [];
      const cpu = median(phases.map(cpuOf));
      // the ratio of each round to its own peer phase, then the median: a slow spell lowers both
      const ratios = phases.map((p, i) => cpuOf(p) / cpuOf((byVariant.get(0) ?? [])[i] as PhaseResult));
      console.log(
        `  ${n} check runs a report: ${cpu.toFixed(2)} ms (server ${median(phases.map((p) => p.cpu.server)).toFixed(2)}, ` +
          `PostgreSQL ${median(phases.map((p) => p.cpu.postgres)).toFixed(2)}; ` +
          `${median(phases.map((p) => p.reportsPerS)).toFixed(0)} reports/s), ${median(ratios).toFixed(2)} × the peer ` +
          `(rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}); a check run adds ${(((cpu - peer) / n) * 1000).toFixed(0)} µs`,
      );
    }
  } finally {
    await knex.destroy();
    await server.stop();
  }
}
