/**
 * One webhook delivery (docs/api.md "Webhook contract"): POST JSON with `X-Argus-Event`,
 * `X-Argus-Delivery` (the same id on every retry of a delivery), `X-Argus-Timestamp` and, when the
 * channel has a secret, `X-Argus-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`.
 *
 * Safe to point at a URL someone typed (SSRF): only http(s) without credentials in the URL, and the
 * connection is made by lib/outbound-connect.ts under the one outbound address policy
 * (lib/outbound-policy.ts; its private-address opt-in is ARGUS_ALLOW_PRIVATE_WEBHOOKS). No redirect
 * is followed, no cookie or Authorization is sent, 10 s for the whole exchange, and of the answer
 * only the status and its first 200 bytes are kept (for the delivery log, never for "Send test").
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { OutboundRefused, outboundConnection } from '../lib/outbound-connect.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Kept of an answer's body: enough to tell what went wrong, never a page of someone's data. */
export const RESPONSE_EXCERPT_BYTES = 200;
/** Waits before the retries of a delivery that failed with 5xx, a timeout or a network error. */
export const RETRY_DELAYS_MS = [30_000, 120_000, 300_000, 600_000, 900_000];

export interface WebhookRequest {
  url: string;
  event: string;
  body: unknown;
  secret?: string | null;
  /** Reused across the retries of one delivery. */
  deliveryId?: string;
  now?: Date;
}

export interface WebhookOptions {
  allowPrivate?: boolean;
  timeoutMs?: number;
}

/**
 * Why a delivery failed, in the words "Send test" may answer with: `policy` (the URL or its address
 * is refused: nothing was sent), `unreachable` (no answer: a name that does not resolve, a refused,
 * reset or timed-out connection, a TLS failure, an answer cut off; never told apart, so the answers
 * draw no map of ports), `http` (the target answered with a status other than 2xx).
 */
export type WebhookFailure = 'policy' | 'unreachable' | 'http';

export type WebhookResult =
  | { ok: true; status: number; excerpt: string; deliveryId: string }
  /**
   * `status` when the target answered (a 3xx, 4xx or 5xx); `retry` whether a later attempt may
   * succeed; `error` the detail for the delivery log and the server's log.
   */
  | { ok: false; failure: WebhookFailure; status: number | null; error: string; retry: boolean; deliveryId: string };

/** The private-address opt-in, named where a refusal it would lift is told. */
const OPT_IN = 'ARGUS_ALLOW_PRIVATE_WEBHOOKS allows it';

/** The URL checked for what it may be (its addresses are checked when connecting, by the outbound policy). */
export function parseWebhookUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'only http:// and https:// URLs';
  if (url.username || url.password) return 'no user or password in the URL (use the signing secret)';
  return url;
}

/** The signature a receiver recomputes: hex HMAC-SHA256 of "<timestamp>.<body>" under the secret. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export async function deliverWebhook(request: WebhookRequest, options: WebhookOptions = {}): Promise<WebhookResult> {
  const deliveryId = request.deliveryId ?? randomUUID();
  const fail = (
    failure: WebhookFailure,
    error: string,
    retry: boolean,
    status: number | null = null,
  ): WebhookResult => ({
    ok: false,
    failure,
    status,
    error,
    retry,
    deliveryId,
  });
  const url = parseWebhookUrl(request.url);
  if (typeof url === 'string') return fail('policy', `URL refused: ${url}`, false);

  const body = JSON.stringify(request.body);
  const timestamp = String(Math.floor((request.now ?? new Date()).getTime() / 1000));
  const headers: Record<string, string> = {
    host: url.host,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'Argus-Webhook/1',
    'x-argus-event': request.event,
    'x-argus-delivery': deliveryId,
    'x-argus-timestamp': timestamp,
  };
  if (request.secret) headers['x-argus-signature'] = webhookSignature(request.secret, timestamp, body);

  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const abort = new AbortController();
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<WebhookResult>((resolve) => {
    let settled = false;
    const finish = (result: WebhookResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = transport.request(url, {
      method: 'POST',
      headers,
      // resolves, checks and connects under the outbound policy; no agent, so no pooled socket
      createConnection: outboundConnection(url, { allowPrivate: options.allowPrivate === true }, abort.signal),
    } as http.RequestOptions);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_EXCERPT_BYTES) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
        if (status >= 200 && status < 300) finish({ ok: true, status, excerpt, deliveryId });
        else if (status >= 300 && status < 400) finish(fail('http', `redirect ${status} not followed`, false, status));
        else
          finish(
            fail('http', `HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`, status >= 500 || status === 429, status),
          );
      });
      res.on('error', (error) => finish(fail('unreachable', `answer cut off: ${error.message}`, true)));
    });
    const timer = setTimeout(() => {
      finish(fail('unreachable', `no answer within ${timeoutMs / 1000} s`, true));
      abort.abort();
      req.destroy();
    }, timeoutMs);
    req.on('error', (error) => {
      if (error instanceof OutboundRefused)
        finish(
          fail('policy', `URL refused: ${error.refusal.reason}${error.refusal.never ? '' : ` (${OPT_IN})`}`, false),
        );
      else finish(fail('unreachable', error.message, true));
    });
    req.end(body);
  });
}
