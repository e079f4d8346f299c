/**
 * ops/nginx.conf.example for real (./tls-proxy.ts: Debian's nginx with a self-signed certificate, the
 * example rendered with only its ports, host name and certificate paths replaced) in front of the app
 * in production mode on loopback. Through it: the HTTP→HTTPS redirect, setup and sign-in (the Origin check sees the browser's host),
 * a WebSocket on /api/live, rate limiting keyed on the address nginx appends to X-Forwarded-For, and an
 * access log without the agent routes' query strings.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import http from 'node:http';
import WebSocket from 'ws';
import { startTestServer, testConfig, type TestServer } from '../../backend/src/testing/app.js';
import { createTestDatabase, type TestDatabase } from '../../backend/src/testing/database.js';
import { freePort } from '../../backend/src/testing/net.js';
import { startTlsProxy, type TlsProxy } from './tls-proxy.js';

const PASSWORD = 'a long enough password for setup';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
}

describe('ops/nginx.conf.example in front of the app', () => {
  let cert: string;
  let db: TestDatabase;
  let app: TestServer;
  let proxy: TlsProxy;
  const ports = { https: 0, http: 0 };
  let base: string;
  let cookie = '';
  let csrfToken = '';
  const email = 'admin@example.com';

  /** One HTTPS request through nginx, trusting only the test certificate; optionally from another loopback address. */
  function request(
    method: string,
    target: string,
    options: { body?: unknown; headers?: Record<string, string>; from?: string } = {},
  ): Promise<Reply> {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: ports.https,
          path: target,
          method,
          ca: cert,
          localAddress: options.from,
          agent: false,
          headers: {
            origin: base,
            ...(payload ? { 'content-type': 'application/json' } : {}),
            ...(cookie ? { cookie } : {}),
            ...options.headers,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => {
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  before(async () => {
    db = await createTestDatabase();
    // production, as deployed: AUTH_URL is nginx's origin, and the app answers only to that host, which
    // it learns from X-Forwarded-Host (the app itself listens on another port)
    const appPort = await freePort();
    proxy = await startTlsProxy({ appPort });
    app = await startTestServer(
      testConfig(db.url, { NODE_ENV: 'production', BCRYPT_COST: '10', PORT: String(appPort), AUTH_URL: proxy.origin }),
    );
    Object.assign(ports, proxy.ports);
    cert = proxy.cert;
    base = proxy.origin;
  });

  after(async () => {
    await proxy?.stop();
    await app?.stop();
    await db?.drop();
  });

  test('redirects plain HTTP to HTTPS', async () => {
    const reply = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: ports.http, path: '/login', headers: { host: '127.0.0.1' } }, resolve)
        .on('error', reject);
    });
    reply.resume();
    assert.equal(reply.statusCode, 301);
    assert.equal(reply.headers.location, 'https://127.0.0.1/login');
  });

  test("logs the agent routes without their query string: an old installer's ?key= stays out of the log", async () => {
    const key = 'enrollLogged_0123456789abcdefghij';
    for (const target of [`/api/agent/install.sh?key=${key}`, `/api/agent/config?key=${key}`])
      await request('GET', target);
    await request('GET', '/api/health?probe=1');
    const logged = await proxy.accessLog();
    assert.ok(!logged.includes(key), logged);
    assert.match(logged, /"GET \/api\/agent\/install\.sh\?\[query not logged\] HTTP\/1\.1" \d{3} /);
    assert.match(logged, /"GET \/api\/agent\/config\?\[query not logged\] HTTP\/1\.1" \d{3} /);
    assert.match(logged, /"GET \/api\/health\?probe=1 HTTP\/1\.1" 200 /, 'other routes are logged whole');
  });

  test('serves the API over TLS: health, setup and sign-in with the browser host forwarded', async () => {
    const health = await request('GET', '/api/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    assert.match(String(health.headers['strict-transport-security']), /max-age=/);

    const foreign = await request('POST', '/api/setup', {
      body: { name: 'Admin', email, password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403, 'a foreign Origin is still refused behind the proxy');

    const setup = await request('POST', '/api/setup', { body: { name: 'Admin', email, password: PASSWORD } });
    assert.equal(setup.status, 201, JSON.stringify(setup.body));

    const login = await request('POST', '/api/auth/login', { body: { identifier: email, password: PASSWORD } });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    cookie = (login.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
    csrfToken = login.body.csrfToken;
    assert.ok(cookie && csrfToken);

    const me = await request('GET', '/api/auth/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.user?.email ?? me.body.email, email);
  });

  test('carries a WebSocket on /api/live (bearer token): the first frame is ready', async () => {
    const created = await request('POST', '/api/tokens', {
      body: { name: 'through nginx' },
      headers: { 'x-csrf-token': csrfToken },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const ws = new WebSocket(`wss://127.0.0.1:${ports.https}/api/live`, {
      ca: cert,
      headers: { authorization: `Bearer ${created.body.token}` },
    });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        ws.once('message', (data) => resolve(data.toString()));
        ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
        ws.once('error', reject);
      });
      assert.deepEqual(JSON.parse(first), { t: 'ready' });
    } finally {
      ws.terminate();
    }
  });

  test('rate limits setup by the address nginx appends, whatever the client claims in X-Forwarded-For', async () => {
    // 10 attempts per 10 minutes per client address; a client rotating a spoofed header gains nothing
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const reply = await request('POST', '/api/setup', {
        body: { name: 'Again', email: `again${attempt}@example.com`, password: PASSWORD },
        headers: { 'x-forwarded-for': `203.0.113.${attempt}` },
        from: '127.0.0.2',
      });
      assert.equal(reply.status, 409, `attempt ${attempt} reaches the handler: ${JSON.stringify(reply.body)}`);
    }
    const limited = await request('POST', '/api/setup', {
      body: { name: 'Again', email: 'again11@example.com', password: PASSWORD },
      headers: { 'x-forwarded-for': '203.0.113.99' },
      from: '127.0.0.2',
    });
    assert.equal(limited.status, 429);
    assert.ok(limited.headers['retry-after']);

    // another client address still gets through, even claiming to be the limited one
    const other = await request('POST', '/api/setup', {
      body: { name: 'Other', email: 'other@example.com', password: PASSWORD },
      headers: { 'x-forwarded-for': '127.0.0.2' },
      from: '127.0.0.3',
    });
    assert.equal(other.status, 409);
  });
});
