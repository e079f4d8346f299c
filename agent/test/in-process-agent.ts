/**
 * The agent's own loop (`runAgent`) in the test's process against a test server, with what the
 * service gives it: its identity, facts, collector and buffer under `dir`, a 1.5 s interval and
 * settings the server's answers fill in. Tests read `logs` and stop it with `stop.abort()`.
 */
import { join } from 'node:path';
import { openBuffer } from '../src/buffer.js';
import { createCollector } from '../src/collect.js';
import { parseConfig } from '../src/config.js';
import { hostFacts } from '../src/facts.js';
import { localHost } from '../src/host.js';
import { loadIdentity } from '../src/identity.js';
import { runAgent } from '../src/runner.js';

export interface InProcessAgentOptions {
  serverUrl: string;
  webhookSecret: string;
  enrollment: string;
  dir: string;
}

export async function startInProcessAgent({ serverUrl, webhookSecret, enrollment, dir }: InProcessAgentOptions) {
  const config = parseConfig(
    `webhook_url: "${serverUrl}/api/webhook/metrics"\nwebhook_secret: "${webhookSecret}"\n` +
      `enrollment: "${enrollment}"\nstate_dir: "${dir}"\n`,
  );
  const host = localHost();
  const settings = { current: {} as Record<string, unknown> };
  const logs: string[] = [];
  const stop = new AbortController();
  const running = runAgent(
    {
      config,
      identity: await loadIdentity(dir, host),
      facts: await hostFacts(host),
      collector: createCollector(host, { primeMs: 10, settings: () => settings.current, log: (l) => logs.push(l) }),
      buffer: await openBuffer(join(dir, 'buffer')),
      log: (line) => logs.push(line),
      intervalMs: 1500,
      random: () => 0,
      settings,
    },
    stop.signal,
  );
  return { running, stop, logs, settings };
}
