/**
 * argus-agent's command line: `run --config FILE` (the service), `once --config FILE` (one report,
 * the server's answer printed; exit 0 on 200), `collect` (one report as JSON, nothing sent),
 * `install-update --config FILE` (the unit's root start step: installs a staged update the server
 * vouches for; always exit 0), `--version`.
 */
import type { AgentBody } from '../../contracts/agent-report.js';
import { join } from 'node:path';
import { openBuffer } from './buffer.js';
import { createCheckScheduler } from './checks.js';
import { createCollector } from './collect.js';
import { ConfigError, readConfig } from './config.js';
import { bootWatch, eventWatches } from './events.js';
import { buildArch, hostFacts } from './facts.js';
import { localHost, type Host } from './host.js';
import { loadIdentity, saveIdentity } from './identity.js';
import { installStagedUpdate } from './install-update.js';
import { journalWatch } from './journal.js';
import { agentToken } from './jwt.js';
import { runAgent } from './runner.js';
import { runTool } from './run-tool.js';
import { loadSettings } from './settings-file.js';
import { deliver } from './send.js';
import { createUpdater, restartInPlace, runningExecutable } from './update.js';
import { AGENT_VERSION } from './version.js';

const USAGE = `usage: argus-agent run --config FILE | once --config FILE | collect | install-update --config FILE | --version`;

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

function configPath(args: string[]): string {
  const index = args.indexOf('--config');
  const path = index >= 0 ? args[index + 1] : undefined;
  return path ?? '/etc/argus-agent/config.yaml';
}

async function body(host: Host, report: AgentBody['reports'][number], enrollment: string | null): Promise<AgentBody> {
  const facts = await hostFacts(host);
  return { agent: { version: AGENT_VERSION, ...facts, ...(enrollment ? { enrollment } : {}) }, reports: [report] };
}

/** Why the server refused, in words a person at the host can act on. */
function refusal(status: number, answer: unknown): string {
  const error = (answer as { error?: string } | null)?.error ?? String(answer).slice(0, 200);
  if (status === 401) return `the server refused the token (${error}): check webhook_secret in the config`;
  if (status === 403)
    return `the server does not know this host (${error}): check the enrollment key, or re-enroll it in the console`;
  return `the server answered ${status}: ${error}`;
}

/** `install-update`: the root start step installing a staged update; exits 0 whatever happens. */
async function installUpdate(args: string[], io: Output): Promise<number> {
  const executable = runningExecutable();
  const config = await readConfig(configPath(args)).catch((error: Error) => {
    io.err(`argus-agent: config: ${error.message}; no staged update installed`);
    return null;
  });
  // a start step that failed would keep the agent from starting: whatever happens, exit 0
  if (config && executable)
    await installStagedUpdate({
      stateDir: config.stateDir,
      executable,
      webhookUrl: config.webhookUrl,
      arch: buildArch(),
      log: (line) => io.err(`argus-agent: ${line}`),
    });
  return 0;
}

/** `once`: one report sent, the server's answer printed (the agent key kept, not shown). */
async function reportOnce(args: string[], io: Output, host: Host): Promise<number> {
  const config = await readConfig(configPath(args));
  const identity = await loadIdentity(config.stateDir, host);
  const report = await createCollector(host, {
    waitForHostTools: true,
    checksDir: config.checksDir,
    textfileDir: config.textfileDir,
    log: (line) => io.err(`argus-agent: ${line}`),
  }).report();
  const token = agentToken(config.webhookSecret, { sub: identity.sub, ak: identity.agentKey });
  const answer = await deliver(
    config.webhookUrl,
    token,
    await body(host, report, identity.agentKey ? null : config.enrollment),
  );
  if (answer.status !== 200) {
    io.err(`argus-agent: ${refusal(answer.status, answer.body)}`);
    return 1;
  }
  const agentKey = (answer.body as { agentKey?: string }).agentKey;
  if (agentKey) await saveIdentity(config.stateDir, { ...identity, agentKey });
  io.out(
    JSON.stringify(answer.body, null, 2).replace(/"agentKey": "[^"]*"/, '"agentKey": "[kept in the state directory]"'),
  );
  return 0;
}

/** `run`: the agent as a service, until SIGTERM or SIGINT. */
async function runService(args: string[], io: Output, host: Host): Promise<number> {
  const config = await readConfig(configPath(args));
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());
  io.out(`argus-agent ${AGENT_VERSION}: reporting to ${new URL(config.webhookUrl).origin} every ${config.interval} s`);
  // what the server's agent settings ask to watch, from its last answer
  const saved = await loadSettings(config.stateDir);
  const settings = { current: saved.settings };
  const log = (line: string) => io.err(`argus-agent: ${line}`);
  // the network checks assigned to this agent, from the last answer until the next one says otherwise
  const checks = createCheckScheduler({ log });
  await checks.assign(saved.checks);
  checks.start(stop.signal);
  const updater = createUpdater({
    stateDir: config.stateDir,
    running: AGENT_VERSION,
    webhookUrl: config.webhookUrl,
    executable: runningExecutable(),
    // under systemd (INVOCATION_ID) the installer's unit has the root start step install-update
    rootInstallsStaged: process.env['INVOCATION_ID'] !== undefined,
    log,
    restart: () => restartInPlace(log),
  });
  await runAgent(
    {
      config,
      identity: await loadIdentity(config.stateDir, host),
      facts: await hostFacts(host),
      collector: createCollector(host, {
        settings: () => settings.current,
        log,
        checksDir: config.checksDir,
        textfileDir: config.textfileDir,
      }),
      settings,
      settingsRev: saved.rev,
      boot: eventWatches(bootWatch(host, config.stateDir), journalWatch(runTool, config.stateDir)),
      buffer: await openBuffer(join(config.stateDir, 'buffer')),
      update: (offer) => updater.answered(offer),
      checks,
      log,
    },
    stop.signal,
  );
  return 0;
}

/** A config that did not read or a step that threw: said on stderr, exit code 2. */
function failed(io: Output, error: unknown): number {
  const message = error instanceof ConfigError ? `config: ${error.message}` : (error as Error).message;
  io.err(`argus-agent: ${message}`);
  return 2;
}

export async function main(args: string[], io: Output, host: Host = localHost()): Promise<number> {
  // units written by installers before `run` existed start `argus-agent --config FILE`
  const [command] = args[0] === '--config' ? ['run'] : args;
  if (command === '--version' || command === 'version') {
    io.out(AGENT_VERSION);
    return 0;
  }
  if (command === 'install-update') return installUpdate(args, io);
  if (command === 'collect') {
    const report = await createCollector(host, { waitForHostTools: true }).report();
    io.out(JSON.stringify(await body(host, report, null), null, 2));
    return 0;
  }
  if (command === 'once') return reportOnce(args, io, host).catch((error: unknown) => failed(io, error));
  if (command === 'run') return runService(args, io, host).catch((error: unknown) => failed(io, error));
  io.err(USAGE);
  return 64;
}
