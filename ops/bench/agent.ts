/**
 * `npm run bench -- agent [seconds]`: the footprint of the built x86_64 agent as a service. It runs
 * `argus-agent run` for `seconds` (default 150) at the agents' default interval (30 s: what runs
 * between two reports counts; `--interval S`: another, e.g. 5 for more collections a minute, which
 * spreads the host tools' once-a-minute forks over six times as many) against a local sink
 * that answers as Argus does, once over http and once over https (the usual production case:
 * node:https and TLS loaded), and reads the process's CPU time and resident memory from /proc, from
 * the second report on (the first collection made with the sink's settings finds, inspects and
 * opens the files of every container, once a start: not the steady state) once the host tools' first
 * runs are over (apt-get's simulation at start: then hourly). The sink keeps idle connections as the production proxy does (ops/nginx.conf.example
 * sets no `keepalive_timeout`, so nginx's defaults: 75 s idle, 1,000 requests a connection), not for
 * the 5 s of a Node server's default, and counts the connections the agent opened: an agent that
 * keeps its connection 5 s (Node's default pool) reuses it in some collections at the 5 s interval,
 * in none at the default 30 s, so the default interval shows what a connection a report costs.
 * Targets: ≤ 60 MB RSS, ≤ 20 ms CPU per collection, ≤ 1 % of one core at the 30 s interval.
 * `--scripts`: then again over http with 10 script checks run at every collection (the agent setting
 * `scripts.interval` 5 s in the sink's answer) and 5 drop-in files of 100 samples each, so the
 * difference is what script checks and drop-ins cost the agent itself (the checks' own CPU shows apart,
 * as the children's).
 *
 * `--containers N`: N idle containers of the test suites' tiny local image on their Docker engine
 * (agent/test/container-engine.ts), read by the agent (the setting `containers.socket` in the sink's
 * answer), removed at the end (`--engine-as-is`: the containers the engine runs already, none started). `--before <executable>`: that build and this one alternately, over
 * http (`--scheme https`: over https), `--rounds R` times (default 3), then each one's median and
 * the ratio after/before (`--after <executable>`: that one instead of this build, for two variants
 * of one build, such as the same bundle with other flags or another PATH): the machine is shared, so the ratio of runs side by side says more than
 * either figure.
 *
 * The executable run is a copy written in 64 KiB pieces, as the installer's curl writes it: postject
 * writes the whole file in one write(2), and on kernels whose page cache then holds it in large
 * folios (ext4 on Linux 6.16+) every page fault maps a whole folio, which put about 30 MB of never
 * used code and ICU data into the RSS of a run straight from agent-dist/ (decisions.md).
 */
import { execFile, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { buildAgent } from '../../agent/build/build-agent.js';
import { docker, ENGINE_SOCKET, ensureTinyImage, TINY_IMAGE } from '../../agent/test/container-engine.js';
import { childPids, statFields, USER_HZ } from './proc-stat.js';
import { median } from './statistics.js';

/** nginx's defaults, which the production proxy runs with: `keepalive_timeout 75s`, `keepalive_requests 1000`. */
const PROXY_KEEPALIVE_MS = 75_000;
const PROXY_KEEPALIVE_REQUESTS = 1000;

/**
 * The process's time on a CPU to the nanosecond, summed over its threads' schedstat: /proc/<pid>/stat
 * counts 10 ms ticks, which over the 9 collections of a 45 s run cannot tell 1 ms a collection apart.
 */
async function onCpuMs(pid: number): Promise<number> {
  let ns = 0;
  for (const thread of await readdir(`/proc/${pid}/task`))
    ns += Number((await readFile(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').catch(() => '0')).split(' ')[0]);
  return ns / 1e6;
}

/** A process's own ticks and those of its children it reaped: utime + stime, cutime + cstime. */
async function ticksOf(pid: number): Promise<{ own: number; reaped: number }> {
  const fields = statFields(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));
  return { own: Number(fields[11]) + Number(fields[12]) || 0, reaped: Number(fields[13]) + Number(fields[14]) || 0 };
}

/** The agent's host-tool launchers (tool-launcher.ts): shells kept running, the tools their children. */
const launchersOf = (pid: number) =>
  childPids(pid).filter((child) => {
    try {
      return /^\d+ \(sh\)/.test(readFileSync(`/proc/${child}/stat`, 'utf8'));
    } catch {
      return false; // ended since
    }
  });

/** A host tool running: a child of the agent that is not a launcher, or a launcher's child. */
const toolRunning = (pid: number) => {
  const launchers = launchersOf(pid);
  return childPids(pid).some((child) => !launchers.includes(child) || childPids(child).length > 0);
};

async function usage(pid: number): Promise<{ cpuMs: number; onCpuMs: number; childrenMs: number; rssMb: number }> {
  const { own: ticks, reaped } = await ticksOf(pid);
  // the host tools it ran: those it reaped itself, and all that its launchers ran (and the launchers)
  let children = reaped;
  for (const launcher of launchersOf(pid)) {
    const { own, reaped: tools } = await ticksOf(launcher);
    children += own + tools;
  }
  const rss = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  return {
    cpuMs: (ticks * 1000) / USER_HZ,
    onCpuMs: await onCpuMs(pid),
    childrenMs: (children * 1000) / USER_HZ,
    rssMb: Number(rss) / 1024,
  };
}

/** Of the resident memory, the executable's (and libraries') file pages and the anonymous rest, MB. */
async function residentSplit(pid: number): Promise<{ fileMb: number; anonymousMb: number }> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
  return { fileMb: (kB('Rss') - kB('Anonymous')) / 1024, anonymousMb: kB('Anonymous') / 1024 };
}

const answer = (settings: Record<string, string>) =>
  JSON.stringify({ accepted: 1, duplicates: 0, skipped: 0, settings, settings_rev: '0', update: null });

/** 10 Nagios-style checks with performance data and 5 `.prom` files of 100 samples: the config lines that name them. */
async function scriptsAndDropIns(state: string): Promise<string> {
  const checks = join(state, 'checks.d');
  const textfile = join(state, 'textfile');
  await mkdir(checks, { mode: 0o755 });
  await mkdir(textfile, { mode: 0o755 });
  for (let i = 0; i < 10; i++) {
    const path = join(checks, `check_${i}`);
    await writeFile(path, `#!/bin/sh\necho "OK - all fine | used=${i}%;80;90;0;100 time=0.0${i}s;1;2"\n`);
    await chmod(path, 0o755);
  }
  for (let f = 0; f < 5; f++) {
    const lines = Array.from({ length: 100 }, (_, i) => `app_jobs_total{queue="q${i}",file="${f}"} ${i * f}`);
    await writeFile(join(textfile, `app_${f}.prom`), `# TYPE app_jobs_total counter\n${lines.join('\n')}\n`);
  }
  return `checks_dir: "${checks}"\ntextfile_dir: "${textfile}"\n`;
}

interface Figures {
  rssMb: number;
  cpuMs: number;
  /** The same by the threads' schedstat, to the nanosecond. */
  onCpuMs: number;
}

interface BenchRun {
  binary: string;
  state: string;
  scheme: 'http' | 'https';
  seconds: number;
  interval: number;
  withScripts?: boolean;
  /** The engine's socket when the bench started containers for the agent to read. */
  containersSocket?: string;
  label?: string;
}

async function benchOnce({
  binary,
  state: stateRoot,
  scheme,
  seconds,
  interval,
  withScripts = false,
  containersSocket,
  label = '',
}: BenchRun): Promise<Figures> {
  const state = await mkdtemp(join(stateRoot, 'run-'));
  const extraConfig = withScripts ? await scriptsAndDropIns(state) : '';
  const settings: Record<string, string> = withScripts ? { 'scripts.interval': '5' } : {};
  settings['containers.socket'] = containersSocket ?? 'off';
  const ANSWER = answer(settings);
  let reports = 0;
  const handler: http.RequestListener = (request, response) => {
    request.resume();
    request.on('end', () => {
      reports += 1;
      response.setHeader('content-type', 'application/json');
      response.end(ANSWER);
    });
  };
  // the environment the installer's unit gives the agent (backend/src/agents/install-script.ts)
  const env: NodeJS.ProcessEnv = { ...process.env, MALLOC_ARENA_MAX: '1' };
  let sink: http.Server;
  if (scheme === 'https') {
    const key = join(state, 'sink.key');
    const cert = join(state, 'sink.pem');
    await promisify(execFile)('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
    ]); // prettier-ignore
    sink = https.createServer({ key: await readFile(key), cert: await readFile(cert) }, handler);
    env['NODE_EXTRA_CA_CERTS'] = cert; // the agent verifies the server as it would in production
  } else sink = http.createServer(handler);
  sink.keepAliveTimeout = PROXY_KEEPALIVE_MS;
  sink.maxRequestsPerSocket = PROXY_KEEPALIVE_REQUESTS;
  let connections = 0;
  sink.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const config = join(state, `config-${scheme}${withScripts ? '-scripts' : ''}.yaml`);
  const stateDir = join(state, `${scheme}${withScripts ? '-scripts' : ''}`);
  const port = (sink.address() as { port: number }).port;
  await writeFile(
    config,
    `webhook_url: "${scheme}://127.0.0.1:${port}/api/webhook/metrics"\nwebhook_secret: "bench"\nstate_dir: "${stateDir}"\ninterval: ${interval}\n${extraConfig}`,
  );
  const agent = spawn(binary, ['run', '--config', config], { stdio: 'ignore', env });
  const waitFor = async (done: () => boolean) => {
    for (let waited = 0; !done() && waited < 180_000; waited += 500)
      await new Promise((resolve) => setTimeout(resolve, 500));
  };
  // the host tools' first runs outlast the first report (it waits 2 s at most; apt-get's simulation
  // takes 10-20 s and then runs hourly, its output read line by line): measure once none is running
  const toolsIdle = async () => {
    for (let waited = 0, idle = 0; idle < 3 && waited < 180_000; waited += 500) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      idle = toolRunning(agent.pid as number) ? 0 : idle + 1;
    }
  };
  // start-up and the first report's two looks, made before the agent had the sink's settings; the
  // second collection is the first with them (the containers' socket): every container found,
  // inspected and its files opened, once a start (at 30 s it would be a fifth of the window)
  await waitFor(() => reports > 1);
  await toolsIdle();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const start = await usage(agent.pid as number);
  const reportsAtStart = reports;
  const connectionsAtStart = connections;
  let peakRss = start.rssMb;
  for (let t = 0; t < seconds; t += 5) {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    peakRss = Math.max(peakRss, (await usage(agent.pid as number)).rssMb);
  }
  const end = await usage(agent.pid as number);
  const split = await residentSplit(agent.pid as number);
  const collections = reports - reportsAtStart;
  const opened = connections - connectionsAtStart;
  agent.kill('SIGTERM');
  sink.close();
  const perCollection = (end.cpuMs - start.cpuMs) / Math.max(1, collections);
  const onCpuPerCollection = (end.onCpuMs - start.onCpuMs) / Math.max(1, collections);
  const toolsPerCollection = (end.childrenMs - start.childrenMs) / Math.max(1, collections);
  console.log(
    `${label}agent over ${scheme}${withScripts ? ' with 10 script checks and 5 drop-in files' : ''} (built x86_64 executable, ${collections} collections and reports in ${seconds} s on ${opened} new connections): ` +
      `RSS ${end.rssMb.toFixed(1)} MB (peak ${peakRss.toFixed(1)}; ${split.fileMb.toFixed(1)} MB file pages, ${split.anonymousMb.toFixed(1)} anonymous), CPU ${perCollection.toFixed(1)} ms per collection ` +
      `(collect + gzip + send; ${onCpuPerCollection.toFixed(2)} ms by its threads' schedstat), ${((perCollection / 30_000) * 100).toFixed(3)} % of one core at the 30 s interval; ` +
      `host tools it ran: ${toolsPerCollection.toFixed(1)} ms per collection`,
  );
  return { rssMb: end.rssMb, cpuMs: perCollection, onCpuMs: onCpuPerCollection };
}

/** `count` idle containers labelled for this bench; returns their removal. */
async function startContainers(count: number): Promise<() => Promise<void>> {
  await ensureTinyImage();
  const label = `argus-agent-bench=${process.pid}`;
  const names = Array.from({ length: count }, (_, i) => `argus-bench-${process.pid}-${i}`);
  const remove = async () => {
    const ids = (await docker('ps', '-aq', '--filter', `label=${label}`)).split('\n').filter(Boolean);
    for (let i = 0; i < ids.length; i += 10) await docker('rm', '-f', ...ids.slice(i, i + 10));
  };
  try {
    for (let i = 0; i < names.length; i += 10)
      await Promise.all(
        names
          .slice(i, i + 10)
          .map((name) => docker('run', '-d', '--name', name, '--label', label, TINY_IMAGE, 'sleep', '1d')),
      );
  } catch (error) {
    await remove();
    throw error;
  }
  return remove;
}

/** `before` and this build alternately, `rounds` times: each one's medians and their ratio. */
async function compare(before: string, after: string, rounds: number, base: Omit<BenchRun, 'binary'>) {
  const runs: Record<'before' | 'after', Figures[]> = { before: [], after: [] };
  for (let round = 1; round <= rounds; round++)
    for (const [which, binary] of [
      ['before', before],
      ['after', after],
    ] as const)
      runs[which].push(await benchOnce({ ...base, binary, label: `round ${round}, ${which}: ` }));
  const cpu = runs.before.map((b, i) => (runs.after[i] as Figures).onCpuMs / b.onCpuMs);
  const rss = runs.before.map((b, i) => (runs.after[i] as Figures).rssMb / b.rssMb);
  console.log(
    `before: CPU median ${median(runs.before.map((r) => r.cpuMs)).toFixed(1)} ms (schedstat ${median(runs.before.map((r) => r.onCpuMs)).toFixed(2)}), RSS median ${median(runs.before.map((r) => r.rssMb)).toFixed(1)} MB; ` +
      `after: CPU median ${median(runs.after.map((r) => r.cpuMs)).toFixed(1)} ms (schedstat ${median(runs.after.map((r) => r.onCpuMs)).toFixed(2)}), RSS median ${median(runs.after.map((r) => r.rssMb)).toFixed(1)} MB; ` +
      `after/before per round: CPU (schedstat) ${cpu.map((r) => r.toFixed(2)).join(', ')}; RSS ${rss.map((r) => r.toFixed(2)).join(', ')}`,
  );
}

export async function benchAgent(args: string[]): Promise<void> {
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const seconds = Number(args.find((arg, i) => /^\d+$/.test(arg) && !args[i - 1]?.startsWith('--')) ?? 150);
  const containers = Number(option('--containers') ?? 0);
  const before = option('--before');
  const { dir } = await buildAgent();
  const state = await mkdtemp(join(tmpdir(), 'argus-agent-bench-'));
  // `--engine-as-is`: the engine's containers as they are (none started or removed: a slow engine takes minutes)
  const asIs = args.includes('--engine-as-is');
  const removeContainers = containers > 0 && !asIs ? await startContainers(containers) : async () => undefined;
  const base = {
    state,
    seconds,
    interval: Number(option('--interval') ?? 30),
    withScripts: args.includes('--scripts'),
    ...(containers > 0 || asIs ? { containersSocket: ENGINE_SOCKET } : {}),
  };
  try {
    const binary = join(state, 'argus-agent');
    await pipeline(
      createReadStream(join(dir, 'argus-agent-linux-x86_64'), { highWaterMark: 64 * 1024 }),
      createWriteStream(binary),
    );
    await chmod(binary, 0o755);
    if (before) {
      const copy = join(state, 'argus-agent-before');
      await pipeline(createReadStream(before, { highWaterMark: 64 * 1024 }), createWriteStream(copy));
      await chmod(copy, 0o755);
      const scheme = option('--scheme') === 'https' ? 'https' : 'http';
      const after = option('--after') ?? binary;
      await compare(copy, after, Number(option('--rounds') ?? 3), { ...base, scheme });
      return;
    }
    for (const scheme of ['http', 'https'] as const) await benchOnce({ ...base, binary, scheme, withScripts: false });
    if (base.withScripts) await benchOnce({ ...base, binary, scheme: 'http' });
  } finally {
    await removeContainers();
    await rm(state, { recursive: true, force: true });
  }
}
