/**
 * One POST of reports to the webhook, on the connection kept from the previous report: gzip JSON, a
 * fresh token, 20 s at most (a stalled connection is given up and dialled anew by the next attempt).
 * The answer's status decides what happens next (sender.ts): 200 stored, 413 halve the batch,
 * 429/5xx wait (Retry-After), 401/403 stop and say why.
 */
import http from 'node:http';
import type https from 'node:https';
import { gzipSync } from 'node:zlib';
import type { AgentBody } from '../../contracts/agent-report.js';

export const REQUEST_TIMEOUT_MS = 20_000;

export interface Delivery {
  status: number;
  /** Seconds the server asked us to wait (Retry-After), if it did. */
  retryAfter: number | null;
  body: unknown;
}

/**
 * How long the connection to the server is kept between reports: longer than the default 30 s
 * interval, so every report at it goes out on the connection (and TLS session) of the previous one;
 * shorter than the idle timeouts of what usually sits in front of the server (nginx's default
 * `keepalive_timeout` of 75 s in ops/nginx.conf.example, the app's own 65 s, a cloud load
 * balancer's, often 60 s), so that the agent, not the server, normally closes an idle connection.
 * Node's default pool closes it after 5 s: a full TLS handshake every report.
 */
export const KEPT_CONNECTION_IDLE_MS = 50_000;
/**
 * TCP keep-alive probes on the idle connection: Node's default sends one every second (libuv), ~50
 * probes between two reports; one after 20 s still keeps a firewall's or NAT's entry fresh.
 */
const KEEP_ALIVE_PROBE_MS = 20_000;

type Pools = { http: http.Agent; https: https.Agent };
const pool = { keepAlive: true, keepAliveMsecs: KEEP_ALIVE_PROBE_MS, timeout: KEPT_CONNECTION_IDLE_MS };
let httpPool: http.Agent | undefined;
let httpsPool: https.Agent | undefined;

/** The agent's own pool for the scheme, made on first use (node:https only for an https server). */
function keptPool(secure: boolean): http.Agent {
  if (!secure) return (httpPool ??= new http.Agent(pool));
  // its TLS session cache (100 servers by default) resumes the session when a connection was closed anyway
  return (httpsPool ??= new (process.getBuiltinModule('node:https').Agent)(pool));
}

type Answer = { status: number; retryAfter: string | null; text: string };

/** The server closed a kept connection as this request went out on it: the request was not read. */
class ClosedUnderRequest extends Error {}

/**
 * One POST by node:http(s): fetch would load undici, which alone costs the agent about 20 MB of RSS.
 * `agents`: keep-alive pools to use instead of the agent's own (the simulator holds one per simulated
 * agent). A request that loses the race against the server closing its idle connection (ECONNRESET or
 * EPIPE on a reused connection) is sent once more on a connection of its own; were it stored after
 * all, the server stores a report once by its time (a duplicate is counted, not stored again).
 */
export async function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  agents?: Pools,
): Promise<Answer> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const kept = agents ? (secure ? agents.https : agents.http) : keptPool(secure);
  try {
    return await postOnce(target, headers, body, kept);
  } catch (error) {
    if (!(error instanceof ClosedUnderRequest)) throw error;
    return postOnce(target, headers, body, false);
  }
}

function postOnce(
  target: URL,
  headers: Record<string, string>,
  body: Buffer,
  agent: http.Agent | false,
): Promise<Answer> {
  // node:https (and tls under it) only when the server is https: about 2.5 MB of RSS otherwise
  const transport = target.protocol === 'https:' ? process.getBuiltinModule('node:https') : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        timeout: REQUEST_TIMEOUT_MS,
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: (response.headers['retry-after'] as string | undefined) ?? null,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    // a stalled connection is given up after 20 s: the next attempt dials anew
    request.on('timeout', () => request.destroy(new Error('no answer within 20 s')));
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')
          ? new ClosedUnderRequest(error.message, { cause: error })
          : error,
      ),
    );
    request.end(body);
  });
}

export async function deliver(url: string, token: string, body: AgentBody): Promise<Delivery> {
  const response = await post(
    url,
    {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'user-agent': `argus-agent/${body.agent.version ?? 'dev'}`,
    },
    gzipSync(JSON.stringify(body)),
  );
  let parsed: unknown = response.text;
  try {
    parsed = JSON.parse(response.text);
  } catch {
    // not JSON (a proxy's error page): keep the text for the message
  }
  const retryAfter = Number(response.retryAfter);
  return {
    status: response.status,
    retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    body: parsed,
  };
}
