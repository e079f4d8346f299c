/**
 * Every outbound connection to a host someone else chose goes through `connectOutbound`: the host
 * is resolved once, every address it has must pass the outbound policy (one refused address
 * refuses the host: a name that answers with a public and a private address is not trusted), the
 * connection goes to a checked address (a second DNS answer cannot swap it), and the address the
 * socket actually connected to is checked again before a byte is written. A caller that follows a
 * redirect calls it again for the new host, so every hop is checked.
 *
 * `outboundConnection` adapts it to http(s).request's `createConnection`.
 */
import { lookup } from 'node:dns/promises';
import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import { addressRefusal, parseAddress, type OutboundPolicy, type Refusal } from './outbound-policy.js';

/** The policy refused the host: nothing was sent to it. */
export class OutboundRefused extends Error {
  readonly code = 'EOUTBOUND_REFUSED';
  constructor(readonly refusal: Refusal) {
    super(`Refused by the outbound address policy: ${refusal.reason}`);
    this.name = 'OutboundRefused';
  }
}

export interface OutboundTarget {
  host: string;
  port: number;
  /** Speak TLS, checking the certificate against `host`. */
  tls?: boolean;
  signal?: AbortSignal;
}

/** The addresses of `host` (an address in any textual form, or a name), all allowed; else throws. */
export async function resolveOutbound(host: string, policy: OutboundPolicy): Promise<string[]> {
  const literal = parseAddress(host);
  const addresses = literal
    ? [literal.toString()]
    : (await lookup(host.replace(/^\[|\]$/g, ''), { all: true, verbatim: true })).map((a) => a.address);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) throw new OutboundRefused(refusal);
  }
  return addresses;
}

function connectTo(address: string, port: number, signal: AbortSignal | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    const abort = () => socket.destroy(new Error('aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    socket.once('connect', () => {
      signal?.removeEventListener('abort', abort);
      resolve(socket);
    });
    socket.once('error', (error) => {
      signal?.removeEventListener('abort', abort);
      reject(error);
    });
  });
}

/** A socket to the first of `addresses` that accepts (one without a route does not end the try). */
async function firstConnected(addresses: string[], target: OutboundTarget): Promise<Socket> {
  let failure: unknown;
  for (const address of addresses) {
    try {
      return await connectTo(address, target.port, target.signal);
    } catch (error) {
      failure = error;
      if (target.signal?.aborted) break;
    }
  }
  throw failure;
}

/** A connected socket (TLS on top when asked) to an address the policy allows. */
export async function connectOutbound(target: OutboundTarget, policy: OutboundPolicy): Promise<Socket> {
  const addresses = await resolveOutbound(target.host, policy);
  target.signal?.throwIfAborted();
  const socket = await firstConnected(addresses, target);
  // what the kernel connected to, not what we asked for
  const refusal = addressRefusal(socket.remoteAddress ?? '', policy);
  if (refusal) {
    socket.destroy();
    throw new OutboundRefused(refusal);
  }
  if (!target.tls) return socket;
  const host = target.host.replace(/^\[|\]$/g, '');
  return tls.connect({ socket, host, ...(parseAddress(host) ? {} : { servername: host }) });
}

/** http(s).request's `createConnection` for a URL's host and port, under the policy. */
export function outboundConnection(url: URL, policy: OutboundPolicy, signal?: AbortSignal) {
  const secure = url.protocol === 'https:';
  const port = Number(url.port) || (secure ? 443 : 80);
  return (_options: unknown, done: (error: Error | null, socket?: Socket) => void): undefined => {
    connectOutbound({ host: url.hostname, port, tls: secure, ...(signal ? { signal } : {}) }, policy).then(
      (socket) => done(null, socket),
      (error: Error) => done(error),
    );
    return undefined;
  };
}
