/**
 * One webhook delivery against real HTTP receivers on 127.0.0.1 (allowed here with allowPrivate, as
 * ARGUS_ALLOW_PRIVATE_WEBHOOKS does): the signature a receiver recomputes, the headers, a 500 and a
 * hang that may be retried, a redirect never followed, an answer cut to 200 bytes, TLS with the
 * host's name; the targets refused without the switch (every special-purpose block and spelling,
 * credentials in the URL), and a real receiver on this machine's own non-loopback address.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../testing/net.js';
import { deliverWebhook, RESPONSE_EXCERPT_BYTES, type WebhookResult } from './webhook.js';

const failureOf = (result: WebhookResult) => (result.ok ? 'delivered' : result.failure);

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('webhook delivery', () => {
  let server: http.Server;
  let base: string;
  const received: Received[] = [];
  let answer: (res: http.ServerResponse) => void = (res) => res.end('ok');

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        answer(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const local = { allowPrivate: true };

  it('posts the JSON with the Argus headers and a signature the receiver can check', async () => {
    answer = (res) => res.end('thanks');
    const now = new Date('2026-11-25T12:00:00Z');
    const result = await deliverWebhook(
      { url: `${base}/hook`, event: 'raised', body: { event: 'raised', alert: { id: 7 } }, secret: 's3cret', now },
      local,
    );
    assert.deepEqual(result.ok && { status: result.status, excerpt: result.excerpt }, {
      status: 200,
      excerpt: 'thanks',
    });
    const got = received.at(-1) as Received;
    assert.deepEqual(JSON.parse(got.body), { event: 'raised', alert: { id: 7 } });
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-argus-event'], 'raised');
    assert.equal(got.headers['x-argus-timestamp'], String(now.getTime() / 1000));
    assert.equal(got.headers['x-argus-delivery'], result.deliveryId);
    const expected = createHmac('sha256', 's3cret')
      .update(`${got.headers['x-argus-timestamp']}.${got.body}`)
      .digest('hex');
    assert.equal(got.headers['x-argus-signature'], `sha256=${expected}`);
    assert.equal(got.headers['authorization'], undefined);
    assert.equal(got.headers['cookie'], undefined);
  });

  it('sends no signature without a secret, and keeps the delivery id across a retry', async () => {
    answer = (res) => res.end();
    const first = await deliverWebhook({ url: base, event: 'resolved', body: {}, deliveryId: 'd-1' }, local);
    assert.equal(first.deliveryId, 'd-1');
    assert.equal(received.at(-1)?.headers['x-argus-signature'], undefined);
    assert.equal(received.at(-1)?.headers['x-argus-delivery'], 'd-1');
  });

  it('marks a 5xx for retry with at most 200 bytes of the answer, a 4xx not', async () => {
    answer = (res) => {
      res.statusCode = 500;
      res.end('x'.repeat(5000));
    };
    const failed = await deliverWebhook({ url: base, event: 'raised', body: {} }, local);
    assert.equal(failed.ok, false);
    assert.ok(!failed.ok && failed.retry && failed.status === 500);
    assert.ok(!failed.ok && failed.error.length <= RESPONSE_EXCERPT_BYTES + 20, failed.ok ? '' : failed.error);
    answer = (res) => {
      res.statusCode = 404;
      res.end('no such hook');
    };
    const refused = await deliverWebhook({ url: base, event: 'raised', body: {} }, local);
    assert.ok(!refused.ok && !refused.retry && refused.status === 404 && /no such hook/.test(refused.error));
  });

  it('gives up on a target that does not answer in time (retry later)', async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    const result = await deliverWebhook({ url: base, event: 'raised', body: {} }, { ...local, timeoutMs: 300 });
    assert.ok(Date.now() - started < 2_000);
    assert.ok(!result.ok && result.retry && result.status === null && /no answer within/.test(result.error));
  });

  it('never follows a redirect', async () => {
    answer = (res) => {
      res.statusCode = 302;
      res.setHeader('location', 'http://169.254.169.254/latest/meta-data/');
      res.end();
    };
    const before = received.length;
    const result = await deliverWebhook({ url: base, event: 'raised', body: {} }, local);
    assert.ok(!result.ok && !result.retry && result.status === 302 && /not followed/.test(result.error));
    assert.equal(received.length, before + 1, 'only the first request');
  });

  it('refuses every special-purpose address in every spelling without the switch, and sends nothing', async () => {
    const before = received.length;
    const port = new URL(base).port;
    for (const url of [
      base,
      `http://localhost:${port}/`,
      `http://127.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f.0.0.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::127.0.0.1]:${port}/`,
      `http://[64:ff9b::127.0.0.1]:${port}/`,
      `http://[2002:7f00:1::1]:${port}/`,
      'http://10.1.2.3/hook',
      'http://172.20.0.5/hook',
      'http://192.168.1.10/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/',
      'http://192.0.2.1/',
      'http://198.51.100.7/',
      'http://203.0.113.9/',
      'http://[::1]/hook',
      'http://[fd00::1]/hook',
      'http://[2001:db8::1]/hook',
      'http://[::]/',
      'http://0.0.0.0/',
      'http://0/',
    ]) {
      const result = await deliverWebhook({ url, event: 'raised', body: {} });
      assert.equal(failureOf(result), 'policy', `${url}: ${JSON.stringify(result)}`);
      assert.ok(!result.ok && !result.retry && /refused/.test(result.error), url);
    }
    assert.equal(received.length, before);
  });

  it('tells a target that cannot be reached by one category, whatever the cause', async () => {
    const closed = await freePort();
    const causes = [
      deliverWebhook({ url: `http://127.0.0.1:${closed}/`, event: 'raised', body: {} }, local), // refused
      deliverWebhook({ url: 'http://no-such-host.invalid/', event: 'raised', body: {} }, local), // no name
    ];
    answer = () => undefined;
    causes.push(deliverWebhook({ url: base, event: 'raised', body: {} }, { ...local, timeoutMs: 300 })); // hangs
    for (const result of await Promise.all(causes)) {
      assert.equal(failureOf(result), 'unreachable', JSON.stringify(result));
      assert.ok(!result.ok && result.retry && result.status === null);
    }
  });

  it('speaks TLS to an https target, checking its certificate for the name in the URL', async () => {
    const dir = await mkdtemp(join(os.tmpdir(), 'argus-tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    await promisify(execFile)('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', key, '-out', cert,
    ]); // prettier-ignore
    const names: string[] = [];
    let requests = 0;
    const tlsServer = https.createServer(
      {
        key: await readFile(key),
        cert: await readFile(cert),
        SNICallback: (name, done) => {
          names.push(name);
          done(null);
        },
      },
      (_req, res) => {
        requests += 1;
        res.end();
      },
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      const port = (tlsServer.address() as AddressInfo).port;
      const result = await deliverWebhook({ url: `https://localhost:${port}/hook`, event: 'raised', body: {} }, local);
      // a certificate no public authority signed: refused by the client before any request
      assert.equal(failureOf(result), 'unreachable', JSON.stringify(result));
      assert.ok(!result.ok && /self-signed|certificate/i.test(result.error), JSON.stringify(result));
      assert.deepEqual(names, ['localhost']);
      assert.equal(requests, 0);
    } finally {
      tlsServer.closeAllConnections();
      await new Promise((resolve) => tlsServer.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses other schemes and credentials in the URL', async () => {
    for (const [url, reason] of [
      ['ftp://example.com/x', /http/],
      ['file:///etc/passwd', /http/],
      ['https://user:pw@example.com/hook', /password/],
      ['not a url', /not a URL/],
    ] as const) {
      const result = await deliverWebhook({ url, event: 'raised', body: {} });
      assert.ok(!result.ok && reason.test(result.error), `${url}: ${JSON.stringify(result)}`);
    }
  });
});

/**
 * This machine's addresses that are not loopback nor link-local (a receiver listens on each); only
 * loopback where it has none, so the test still proves the refusal of the host's own address.
 */
function ownAddresses(): { address: string; family: 'IPv4' | 'IPv6' }[] {
  const all = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []);
  const outside = all.filter((a) => !a.internal && !a.address.startsWith('fe80:'));
  return outside.length > 0 ? outside : [{ address: '127.0.0.1', family: 'IPv4' }];
}

/** The spellings of an address a URL may carry (IPv4 in its numeric forms and inside IPv6 ones). */
function spellings(own: { address: string; family: 'IPv4' | 'IPv6' }): string[] {
  if (own.family === 'IPv6') return [`[${own.address}]`];
  const [a, b, c, d] = own.address.split('.').map(Number) as [number, number, number, number];
  const value = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  return [
    own.address,
    String(value),
    `0x${value.toString(16)}`,
    `0${a.toString(8)}.${b}.${c}.${d}`,
    `${a}.${b}.${(c << 8) + d}`,
    `[::ffff:${own.address}]`,
    `[64:ff9b::${own.address}]`,
  ];
}

for (const own of ownAddresses())
  describe(`webhook delivery to this server's own address ${own.address}`, () => {
    let server: http.Server;
    let port: number;
    let requests = 0;

    before(async () => {
      server = http.createServer((_req, res) => {
        requests += 1;
        res.end('a service on the Argus host');
      });
      await new Promise<void>((resolve) => server.listen(0, own.address, resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('is refused in every spelling, while the receiver is there for the opt-in', async () => {
      for (const host of spellings(own)) {
        const result = await deliverWebhook({ url: `http://${host}:${port}/`, event: 'raised', body: {} });
        assert.equal(failureOf(result), 'policy', `${host}: ${JSON.stringify(result)}`);
      }
      assert.equal(requests, 0, 'nothing reached the service on the host');
      const allowed = await deliverWebhook(
        { url: `http://${spellings(own)[0]}:${port}/`, event: 'raised', body: {} },
        { allowPrivate: true },
      );
      assert.equal(failureOf(allowed), 'delivered');
      assert.equal(requests, 1);
    });
  });
