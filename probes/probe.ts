/**
 * Runs one check once, whatever its type, within its timeout: the probes the server's runner and
 * the agent share (Node's own modules only, nothing of the server: the agent ships alone).
 */
import type { CheckSettings } from '../contracts/checks.js';
import type { ProbeNetwork, ProbeOutcome } from './outcome.js';
import { probeHttp } from './probe-http.js';
import { probeDns, probePing, probeTcp } from './probe-net.js';

export interface ProbeRequest {
  settings: CheckSettings;
  /** The HTTP check's headers, secret values opened. */
  headers: Record<string, string>;
  timeoutMs: number;
  /** Slower than this is DEGRADED (slow), not DOWN. */
  maxResponseMs: number | null;
}

export interface ProbeResult extends ProbeOutcome {
  at: Date;
  slow: boolean;
}

export async function runProbe(request: ProbeRequest, network: ProbeNetwork, now: () => Date): Promise<ProbeResult> {
  const at = now();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), request.timeoutMs);
  const ctx = { network, timeoutMs: request.timeoutMs, signal: abort.signal, now };
  try {
    const { settings } = request;
    const outcome =
      settings.type === 'http'
        ? await probeHttp(settings, request.headers, ctx)
        : settings.type === 'tcp'
          ? await probeTcp(settings, ctx)
          : settings.type === 'dns'
            ? await probeDns(settings, ctx)
            : await probePing(settings, ctx);
    const slow = outcome.up && request.maxResponseMs !== null && (outcome.responseMs ?? 0) > request.maxResponseMs;
    return { ...outcome, at, slow };
  } finally {
    clearTimeout(timer);
  }
}
