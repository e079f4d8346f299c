/**
 * The address policy of server-run checks: the notification channels' one (lib/outbound-policy.ts)
 * with the checks' own opt-in, plus the cloud metadata services refused even then. A check answers
 * whether a keyword or pattern appears in a body, one bit per run that a patient operator could
 * use to read a metadata service's credentials; nothing legitimate is checked there.
 */
import type { OutboundPolicy } from '../lib/outbound-policy.js';

export const CLOUD_METADATA = [
  { block: '169.254.169.254/32', name: 'a cloud metadata service' },
  { block: '169.254.170.2/32', name: 'a cloud metadata service' },
  { block: '100.100.100.200/32', name: 'a cloud metadata service' },
  { block: 'fd00:ec2::254/128', name: 'a cloud metadata service' },
] as const;

export function checksPolicy(allowPrivate: boolean): OutboundPolicy {
  return { allowPrivate, alwaysRefused: CLOUD_METADATA };
}
