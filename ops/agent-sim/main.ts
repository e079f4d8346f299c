/**
 * Agent simulator: N agents reporting the metric catalogue every S seconds.
 *
 *   node_modules/.bin/tsx ops/agent-sim/main.ts --url http://127.0.0.1:3000 --systems 200 --interval 30 \
 *     --enrollment <cluster enrollment key> [--secret <WEBHOOK_SECRET>] [--gzip] [--faults 0.05] [--prefix sim]
 *
 * The secret comes from --secret or WEBHOOK_SECRET. `--url` may be the base URL
 * or the full webhook URL. `--faults F` gives a fraction F of the agents a fault
 * each (disk-fill, cpu-spike, offline for 5 minutes, clock skew, replayed
 * buffer), changing every 10 minutes. One status line every interval.
 * `--fleet F.json` simulates given hosts instead of N numbered ones: a JSON array of
 * `{sub, hostname, enrollment}` (the demo keeps its sample fleet reporting this way).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isMain } from '../../db/is-main.js';
import { SimulatedAgent, type AgentFault } from './agent.js';

const FAULTS: AgentFault[] = ['disk-fill', 'cpu-spike', 'offline', 'clock-skew', 'replay'];

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
  const agents = hosts.map(
    (host, i) =>
      new SimulatedAgent({
        url: webhookUrl(values.url),
        secret,
        ...host,
        seed: i + 1,
        gzip: values.gzip,
      }),
  );
  const counts = new Map<number, number>();
  let reports = 0;

  const assignFaults = () => {
    for (const agent of agents) {
      const fault = Math.random() < faultShare ? FAULTS[Math.floor(Math.random() * FAULTS.length)] : undefined;
      agent.setFault(fault ?? null);
    }
  };
  assignFaults();
  const faultTimer = faultShare > 0 ? setInterval(assignFaults, 10 * 60_000) : null;

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
    const faulty = agents.filter((a) => a.fault).length;
    console.log(
      `${new Date().toISOString()} stored ${reports} reports; answers ${statuses}; buffered ${buffered}; faulty ${faulty}`,
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
