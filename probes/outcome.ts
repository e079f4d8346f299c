/** What one run of a check measured (plain data shared by the probes, the runners and the answers). */
import type { Socket } from 'node:net';

export interface ProbeOutcome {
  up: boolean;
  /** Why it failed, in a few words; never any of the answer's body. */
  reason: string | null;
  responseMs: number | null;
  status: number | null;
  keywordMatched: boolean | null;
  certDaysLeft: number | null;
  certValid: boolean | null;
  packetLossPct: number | null;
}

/**
 * How a probe reaches the network. The server's goes through its outbound address policy (every
 * address checked, the connected one again); an agent's connects plainly, as reaching the
 * customer's own network is what its checks are for.
 */
export interface ProbeNetwork {
  /** A connected TCP socket to `host` (a name or an address) and `port`. */
  connect(host: string, port: number, signal: AbortSignal): Promise<Socket>;
  /** The addresses of `host`, every one of them allowed; throws otherwise. */
  resolve(host: string): Promise<string[]>;
  /** Why a DNS check may not ask the resolver at this address (an error to report), or null. */
  resolverRefusal(address: string): Error | null;
}

export interface ProbeContext {
  /** How every connection of the run is made. */
  network: ProbeNetwork;
  timeoutMs: number;
  /** Aborted when the run's time is up. */
  signal: AbortSignal;
  now(): Date;
}

export const EMPTY_OUTCOME: ProbeOutcome = {
  up: false,
  reason: null,
  responseMs: null,
  status: null,
  keywordMatched: null,
  certDaysLeft: null,
  certValid: null,
  packetLossPct: null,
};

export const failed = (reason: string, extra: Partial<ProbeOutcome> = {}): ProbeOutcome => ({
  ...EMPTY_OUTCOME,
  ...extra,
  up: false,
  reason,
});

/** A failure a probe names itself (a certificate that does not verify, a body cut off…). */
export class CheckFailure extends Error {}

/** The few words a failed connection is told by (the code, never a stack or an answer). */
export function failureReason(error: unknown, timeoutMs: number, signal: AbortSignal): string {
  if (signal.aborted) return `no answer within ${timeoutMs / 1000} s`;
  if (error instanceof CheckFailure) return error.message;
  const { code, name, message } = error as { code?: string; name?: string; message?: string };
  if (name === 'OutboundRefused')
    return `refused by policy: ${message?.replace(/^Refused by the outbound address policy: /, '')}`;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'name does not resolve';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection closed';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to host';
    default:
      if (message === 'socket hang up') return 'connection closed';
      return code ? `network error ${code}` : 'network error';
  }
}
