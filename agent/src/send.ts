/**
 * One POST of reports to the webhook: gzip JSON, a fresh token, 20 s at most (a stalled connection
 * is given up and dialled anew by the next attempt). The answer's status decides what happens next
 * (sender.ts): 200 stored, 413 halve the batch, 429/5xx wait (Retry-After), 401/403 stop and say why.
 */
import { gzipSync } from 'node:zlib';
import type { AgentBody } from '../../contracts/agent-report.js';

export const REQUEST_TIMEOUT_MS = 20_000;

export interface Delivery {
  status: number;
  /** Seconds the server asked us to wait (Retry-After), if it did. */
  retryAfter: number | null;
  body: unknown;
}

export async function deliver(url: string, token: string, body: AgentBody): Promise<Delivery> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'user-agent': `argus-agent/${body.agent.version ?? 'dev'}`,
    },
    body: gzipSync(JSON.stringify(body)),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (a proxy's error page): keep the text for the message
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return {
    status: response.status,
    retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    body: parsed,
  };
}
