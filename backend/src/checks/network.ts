/**
 * The server's way onto the network for its checks: every connection and every name through the
 * outbound address policy (lib/outbound-connect.ts), the resolver of a DNS check checked the same way.
 */
import type { ProbeNetwork } from '../../../probes/outcome.js';
import { connectOutbound, OutboundRefused, resolveOutbound } from '../lib/outbound-connect.js';
import { addressRefusal, type OutboundPolicy } from '../lib/outbound-policy.js';

export function policyNetwork(policy: OutboundPolicy): ProbeNetwork {
  return {
    connect: (host, port, signal) => connectOutbound({ host, port, signal }, policy),
    resolve: (host) => resolveOutbound(host, policy),
    resolverRefusal(address) {
      const refusal = addressRefusal(address, policy);
      return refusal ? new OutboundRefused(refusal) : null;
    },
  };
}
