/**
 * One webhook delivery against real HTTP receivers on 127.0.0.1 (allowed here with allowPrivate, as
 * ARGUS_ALLOW_PRIVATE_WEBHOOKS does): the signature a receiver recomputes, the headers, a 500 and a
 * hang that may be retried, a redirect never followed, an answer cut to 200 bytes; and the targets
 * refused without the switch (loopback, private, link-local, metadata, credentials in the URL).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { deliverWebhook, isPrivateAddress, RESPONSE_EXCERPT_BYTES } from './webhook.js';

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

  it('refuses private, loopback, link-local and metadata targets without the switch, and sends nothing', async () => {
    const before = received.length;
    for (const url of [
      base,
      `http://localhost:${new URL(base).port}/`,
      'http://10.1.2.3/hook',
      'http://172.20.0.5/hook',
      'http://192.168.1.10/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/',
      'http://[::1]/hook',
      'http://[fd00::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0.0.0.0/',
    ]) {
      const result = await deliverWebhook({ url, event: 'raised', body: {} });
      assert.ok(!result.ok && !result.retry && /refused/.test(result.error), `${url}: ${JSON.stringify(result)}`);
    }
    assert.equal(received.length, before);
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

  it('tells public addresses from private ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.1.1',
      '::1',
      'fe80::1',
      'fc00::2',
    ])
      assert.equal(isPrivateAddress(address), true, address);
    for (const address of ['1.1.1.1', '93.184.216.34', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      assert.equal(isPrivateAddress(address), false, address);
  });
});
