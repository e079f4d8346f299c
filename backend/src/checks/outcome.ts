/** What one run of a check measured (plain data shared by the probes, the runner and the answers). */
import type { OutboundPolicy } from '../lib/outbound-policy.js';

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

export interface ProbeContext {
  /** The outbound address policy every connection of a server-run check is made under. */
  policy: OutboundPolicy;
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
