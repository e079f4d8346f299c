/**
 * One webhook delivery (issue 13, "Webhook contract"): POST JSON with `X-Argus-Event`,
 * `X-Argus-Delivery` (the same id on every retry of a delivery), `X-Argus-Timestamp` and, when the
 * channel has a secret, `X-Argus-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`.
 *
 * Safe to point at a URL someone typed (SSRF): only http(s) without credentials in the URL; the host
 * is resolved once and every address it has must be public (loopback, private, link-local, CGNAT,
 * unspecified, multicast and reserved ranges refused unless `allowPrivate`, i.e.
 * ARGUS_ALLOW_PRIVATE_WEBHOOKS=true), and the connection goes to the address that was checked, so a
 * second DNS answer cannot swap it. No redirect is followed, no cookie or Authorization is sent,
 * 10 s for the whole exchange, and of the answer only the status and its first 200 bytes are kept.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';

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

export type WebhookResult =
  | { ok: true; status: number; excerpt: string; deliveryId: string }
  /** `status` when the target answered (a 3xx, 4xx or 5xx); `retry` whether a later attempt may succeed. */
  | { ok: false; status: number | null; error: string; retry: boolean; deliveryId: string };

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3], // multicast and reserved, up to 255.255.255.255
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

/** Whether an address is one a webhook may not reach without ARGUS_ALLOW_PRIVATE_WEBHOOKS. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** The URL checked for what it may be (the host is checked after resolving, in `deliver`). */
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

async function vettedAddress(url: URL, allowPrivate: boolean): Promise<{ address: string; family: number } | string> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  } catch {
    return `${host} does not resolve`;
  }
  if (addresses.length === 0) return `${host} does not resolve`;
  if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address)))
    return `${host} is a private, loopback or link-local address (ARGUS_ALLOW_PRIVATE_WEBHOOKS allows it)`;
  return addresses[0] as { address: string; family: number };
}

export async function deliverWebhook(request: WebhookRequest, options: WebhookOptions = {}): Promise<WebhookResult> {
  const deliveryId = request.deliveryId ?? randomUUID();
  const fail = (error: string, retry: boolean, status: number | null = null): WebhookResult => ({
    ok: false,
    status,
    error,
    retry,
    deliveryId,
  });
  const url = parseWebhookUrl(request.url);
  if (typeof url === 'string') return fail(`URL refused: ${url}`, false);
  const target = await vettedAddress(url, options.allowPrivate === true);
  if (typeof target === 'string') return fail(`URL refused: ${target}`, false);

  const body = JSON.stringify(request.body);
  const timestamp = String(Math.floor((request.now ?? new Date()).getTime() / 1000));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'Argus-Webhook/1',
    'x-argus-event': request.event,
    'x-argus-delivery': deliveryId,
    'x-argus-timestamp': timestamp,
  };
  if (request.secret) headers['x-argus-signature'] = webhookSignature(request.secret, timestamp, body);

  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<WebhookResult>((resolve) => {
    let settled = false;
    const finish = (result: WebhookResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = transport.request(
      url,
      {
        method: 'POST',
        headers,
        // connect to the address that was checked, whatever a second lookup would say
        lookup: (_host, lookupOptions, callback) => {
          // (with autoSelectFamily, Node asks for every address)
          const done = callback as (error: null, address: unknown, family?: number) => void;
          if ((lookupOptions as { all?: boolean }).all)
            done(null, [{ address: target.address, family: target.family }]);
          else done(null, target.address, target.family);
        },
        agent: false,
      },
      (res) => {
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
          else if (status >= 300 && status < 400) finish(fail(`redirect ${status} not followed`, false, status));
          else finish(fail(`HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`, status >= 500 || status === 429, status));
        });
        res.on('error', (error) => finish(fail(`answer cut off: ${error.message}`, true, res.statusCode ?? null)));
      },
    );
    const timer = setTimeout(() => {
      finish(fail(`no answer within ${(options.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000} s`, true));
      req.destroy();
    }, options.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
    req.on('error', (error) => finish(fail(error.message, true)));
    req.end(body);
  });
}
