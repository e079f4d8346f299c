/**
 * A real HTTP receiver on 127.0.0.1 for notification tests: records every request, checks the
 * Argus signature when given the secret, and answers what the test scripts (a status, a hang).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** null when no secret was given to check with */
  signatureValid: boolean | null;
}

export async function startWebhookReceiver(secret: string | null = null) {
  const received: ReceivedRequest[] = [];
  /** Statuses answered in turn; when empty, 200. 0 = never answer (hang). */
  const script: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const timestamp = String(req.headers['x-argus-timestamp'] ?? '');
      const expected = secret
        ? `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
        : null;
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // recorded as it came
      }
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        signatureValid: expected === null ? null : req.headers['x-argus-signature'] === expected,
      });
      const status = script.shift() ?? 200;
      if (status === 0) return; // hang until the sender gives up
      res.statusCode = status;
      res.end(status < 300 ? 'ok' : 'receiver says no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** Queue the statuses of the next answers. */
    answer(...statuses: number[]) {
      script.push(...statuses);
    },
    events: () => received.map((r) => r.json['event']),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
