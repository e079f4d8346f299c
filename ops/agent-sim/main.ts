/**
 * Agent simulator: N agents reporting the metric catalogue every S seconds.
 *
 *   node_modules/.bin/tsx ops/agent-sim/main.ts --url http://127.0.0.1:3000 --systems 200 --interval 30 \
 *     --enrollment <cluster enrollment key> [--secret <WEBHOOK_SECRET>] [--gzip] [--faults 0.05] [--prefix sim]
 *
 * The secret comes from --secret or WEBHOOK_SECRET. `--url` may be the base URL
 * or the full webhook URL. `--faults F` gives a fraction F of the agents a fault
 * each (disk-fill, cpu-spike, offline for 5 minutes, clock skew, replayed
 * buffer), changing every 10 minutes, the first ones 10 minutes after the start. One status line every
 * interval, naming the faults in effect.
 * `--fleet F.json` simulates given hosts instead of N numbered ones: a JSON array of
 * `{sub, hostname, enrollment}` (the demo keeps its sample fleet reporting this way).
 * `--keys F.json` keeps the agent keys the server gives (`{sub: agentKey}`, mode 0600) and starts
 * with them, as a real agent keeps its key in its state directory: a restarted simulator speaks
 * for the systems it enrolled before instead of being refused (401) without its key.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isMain } from '../../db/is-main.js';
import { SimulatedAgent, type AgentFault } from './agent.js';

const FAULTS: AgentFault[] = ['disk-fill', 'cpu-spike', 'offline', 'clock-skew', 'replay'];
/** How long a fault lasts, and how long after the start the first ones come. */
const FAULT_PERIOD_MS = 10 * 60_000;

export interface FleetHost {
  sub: string;
  hostname: string;
  enrollment?: string;
}

async function readFleet(file: string): Promise<FleetHost[]> {
  const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
  const valid = (h: unknown): h is FleetHost =>
    typeof h === 'object' &&
    h !== null &&
    typeof (h as FleetHost).sub === 'string' &&
    typeof (h as FleetHost).hostname === 'string' &&
    ['string', 'undefined'].includes(typeof (h as FleetHost).enrollment);
  if (!Array.isArray(parsed) || !parsed.length || !parsed.every(valid))
    throw new Error(`--fleet ${file}: expected a non-empty JSON array of {sub, hostname, enrollment?}`);
  return parsed;
}

/** The agent keys kept by an earlier run, by `sub` (none when the file does not exist yet). */
async function readKeys(file: string): Promise<Record<string, string>> {
  if (!existsSync(file)) return {};
  const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((key) => typeof key === 'string');
  if (!valid) throw new Error(`--keys ${file}: expected a JSON object of {sub: agentKey}`);
  return parsed as Record<string, string>;
}

/** Writes every agent's key once it changed (a first enrolment), readable by the owner only. */
function keyKeeper(file: string | undefined, agents: readonly SimulatedAgent[], subs: readonly string[]) {
  let saved = JSON.stringify(keysOf(agents, subs));
  let writing = Promise.resolve();
  return () => {
    const keys = JSON.stringify(keysOf(agents, subs));
    if (!file || keys === saved) return;
    saved = keys;
    writing = writing
      .then(() => writeFile(file, keys, { mode: 0o600 }))
      .catch((error: unknown) =>
        console.error(`Could not keep the agent keys in ${file}: ${(error as Error).message}`),
      );
  };
}

function keysOf(agents: readonly SimulatedAgent[], subs: readonly string[]): Record<string, string> {
  return Object.fromEntries(agents.flatMap((agent, i) => (agent.agentKey ? [[subs[i], agent.agentKey]] : [])));
}

export function webhookUrl(url: string): string {
  return url.endsWith('/api/webhook/metrics') ? url : `${url.replace(/\/$/, '')}/api/webhook/metrics`;
}

export async function runSimulator(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:3000' },
      systems: { type: 'string', default: '10' },
      interval: { type: 'string', default: '30' },
      enrollment: { type: 'string' },
      secret: { type: 'string' },
      gzip: { type: 'boolean', default: false },
      faults: { type: 'string', default: '0' },
      prefix: { type: 'string', default: 'sim' },
      fleet: { type: 'string' },
      keys: { type: 'string' },
    },
  });
  const secret = values.secret ?? process.env['WEBHOOK_SECRET'];
  if (!secret) throw new Error('Give the webhook secret with --secret or WEBHOOK_SECRET');
  const systems = Number(values.systems);
  const intervalMs = Number(values.interval) * 1000;
  const faultShare = Number(values.faults);
  if (!Number.isInteger(systems) || systems < 1) throw new Error('--systems must be a positive integer');
  if (!(intervalMs >= 1000)) throw new Error('--interval must be at least 1 (seconds)');

  const hosts: FleetHost[] = values.fleet
    ? await readFleet(values.fleet)
    : Array.from({ length: systems }, (_, i) => ({
        sub: `${values.prefix}-${String(i + 1).padStart(4, '0')}`,
        hostname: `${values.prefix}-host-${i + 1}`,
        ...(values.enrollment ? { enrollment: values.enrollment } : {}),
      }));
  const kept = values.keys ? await readKeys(values.keys) : {};
  const agents = hosts.map((host, i) => {
    const agentKey = kept[host.sub];
    return new SimulatedAgent({
      url: webhookUrl(values.url),
      secret,
      ...host,
      seed: i + 1,
      gzip: values.gzip,
      ...(agentKey ? { agentKey } : {}),
    });
  });
  const keepKeys = keyKeeper(
    values.keys,
    agents,
    hosts.map((host) => host.sub),
  );
  const counts = new Map<number, number>();
  let reports = 0;

  const assignFaults = () => {
    for (const agent of agents) {
      const fault = Math.random() < faultShare ? FAULTS[Math.floor(Math.random() * FAULTS.length)] : undefined;
      agent.setFault(fault ?? null);
    }
  };
  // none at the start: a (re)started fleet comes up healthy, so a refusal (a skewed clock's 401) or an
  // agent silent in the first minutes is never mistaken for the start's doing
  const faultTimer = faultShare > 0 ? setInterval(assignFaults, FAULT_PERIOD_MS) : null;

  const timers = agents.map((agent, i) =>
    setTimeout(
      () => {
        const tick = async () => {
          agent.collect();
          const result = await agent.send();
          if (result) {
            counts.set(result.status, (counts.get(result.status) ?? 0) + 1);
            reports += result.accepted ?? 0;
          }
          keepKeys();
        };
        void tick();
        timers[i] = setInterval(() => void tick(), intervalMs);
      },
      Math.floor((i / agents.length) * intervalMs), // spread the fleet over the interval
    ),
  );
  console.log(
    `Simulating ${agents.length} agents, reporting every ${intervalMs / 1000} s to ${webhookUrl(values.url)}`,
  );
  const status = setInterval(() => {
    const statuses = [...counts].map(([code, n]) => `${code || 'error'}:${n}`).join(' ');
    const buffered = agents.reduce((sum, a) => sum + a.buffered, 0);
    // by kind: a skewed clock's reports are refused (401) and an offline agent's sends fail (error) by design
    const faults = agents.flatMap((a) => (a.fault ? [a.fault] : [])).sort();
    console.log(
      `${new Date().toISOString()} stored ${reports} reports; answers ${statuses}; buffered ${buffered}; ` +
        `faults ${faults.length ? faults.join(', ') : 'none'}`,
    );
  }, intervalMs);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  for (const timer of timers) clearInterval(timer);
  clearInterval(status);
  if (faultTimer) clearInterval(faultTimer);
}

if (isMain(import.meta.url)) {
  runSimulator(process.argv.slice(2)).catch((error: unknown) => {
    console.error((error as Error).message);
    process.exit(1);
  });
}
