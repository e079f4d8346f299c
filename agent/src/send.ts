/**
 * One POST of reports to the webhook: gzip JSON, a fresh token, 20 s at most (a stalled connection
 * is given up and dialled anew by the next attempt). The answer's status decides what happens next
 * (sender.ts): 200 stored, 413 halve the batch, 429/5xx wait (Retry-After), 401/403 stop and say why.
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
 * One POST by node:http(s): fetch would load undici, which alone costs the agent about 20 MB of RSS.
 * `agents`: keep-alive pools to reuse (the simulator holds one per simulated agent).
 */
export function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  agents?: { http: http.Agent; https: https.Agent },
): Promise<{ status: number; retryAfter: string | null; text: string }> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  // node:https (and tls under it) only when the server is https: about 2.5 MB of RSS otherwise
  const transport = secure ? process.getBuiltinModule('node:https') : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        timeout: REQUEST_TIMEOUT_MS,
        ...(agents ? { agent: secure ? agents.https : agents.http } : {}),
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
    request.on('error', reject);
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
