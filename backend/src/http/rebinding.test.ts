/**
 * DNS rebinding and foreign origins: a page whose name re-resolves to the address Argus
 * listens on sends its own name as Host and its own origin as Origin. Browser-facing requests are
 * accepted only for AUTH_URL's host and exactly AUTH_URL's origin (or ALLOWED_ORIGINS); a refused
 * request stores nothing. Bearer credentials and /api/health are not browser-facing.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { PASSWORD } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client, bearer } from '../testing/http.js';

const SETUP = { name: 'Ada', email: 'ada@example.com', password: PASSWORD };
const LOGIN = { identifier: 'ada@example.com', password: PASSWORD };

/** One request with exactly these headers (fetch would not let a test choose Host). */
function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: { error?: string; code?: string } }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, url),
      {
        method,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('only our own host and origin', () => {
  const t = useTestServer();

  /** Refused browser-facing requests: [what, headers, status]. */
  function refusals(): [string, Record<string, string>, number][] {
    const { host, port } = new URL(t.server.url);
    return [
      [
        'rebinding: foreign Host and its Origin',
        { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` },
        421,
      ],
      [
        'rebinding through a proxy: foreign X-Forwarded-Host',
        { host, 'x-forwarded-host': `attacker.example:${port}`, origin: `http://attacker.example:${port}` },
        421,
      ],
      ['our host without its port', { host: '127.0.0.1', origin: 'http://127.0.0.1' }, 421],
      ['foreign Origin', { host, origin: 'https://evil.example' }, 403],
      ['our host with https', { host, origin: `https://${host}` }, 403],
      ['our host with ws', { host, origin: `ws://${host}` }, 403],
      ['our host with ftp', { host, origin: `ftp://${host}` }, 403],
      ['our host on another port', { host, origin: 'http://127.0.0.1:1' }, 403],
      ['a sandboxed frame', { host, origin: 'null' }, 403],
    ];
  }

  it('refuses setup from a foreign host or origin with nothing stored, then accepts our own', async () => {
    for (const [what, headers, status] of refusals()) {
      const reply = await raw(t.server.url, 'POST', '/api/setup', headers, SETUP);
      assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
      if (status === 421) assert.match(reply.body.error ?? '', new RegExp(`answers to ${new URL(t.server.url).host}`));
      assert.equal((await t.db.knex('users').count({ n: '*' }).first())?.n, '0', what);
    }
    assert.equal((await new Client(t.server.url).post('/api/setup', SETUP)).status, 201);
  });

  it('refuses sign-in the same way with no session stored, then signs in from our own origin', async () => {
    for (const [what, headers, status] of refusals()) {
      const reply = await raw(t.server.url, 'POST', '/api/auth/login', headers, LOGIN);
      assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
      assert.equal((await t.db.knex('sessions').count({ n: '*' }).first())?.n, '0', what);
    }
    const client = new Client(t.server.url);
    assert.equal((await client.signIn(LOGIN.identifier, LOGIN.password)).status, 200);
    // a cookie write from a foreign origin is refused even with the session and its CSRF token
    const foreign = await client.post('/api/customers', { name: 'Evil Ltd' }, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal((await t.db.knex('customers').count({ n: '*' }).first())?.n, '0');
  });

  it('refuses reads for a foreign host too, but not health checks or bearer credentials', async () => {
    const { port } = new URL(t.server.url);
    const foreignHost = { host: `attacker.example:${port}` };
    assert.equal((await raw(t.server.url, 'GET', '/api/auth/options', foreignHost)).status, 421);
    assert.equal((await raw(t.server.url, 'GET', '/login', foreignHost)).status, 421);
    assert.equal((await raw(t.server.url, 'GET', '/api/health', foreignHost)).status, 200);

    const client = new Client(t.server.url);
    await client.signIn(LOGIN.identifier, LOGIN.password);
    const token = (await client.post('/api/tokens', { name: 'script' })).body.token as string;
    const me = await raw(t.server.url, 'GET', '/api/auth/me', { ...foreignHost, ...bearer(token) });
    assert.equal(me.status, 200, 'a script may call Argus by any name it resolves');
  });
});

describe('ALLOWED_ORIGINS', () => {
  const t = useTestServer({ ALLOWED_ORIGINS: 'https://console.example.net, https://ops.example.org:8443' });

  it('lets the listed origins sign in, and no other', async () => {
    const { host } = new URL(t.server.url);
    await new Client(t.server.url).post('/api/setup', SETUP);
    for (const origin of ['https://console.example.net', 'https://ops.example.org:8443']) {
      assert.equal((await raw(t.server.url, 'POST', '/api/auth/login', { host, origin }, LOGIN)).status, 200, origin);
    }
    for (const origin of ['http://console.example.net', 'https://ops.example.org', 'https://example.net']) {
      assert.equal((await raw(t.server.url, 'POST', '/api/auth/login', { host, origin }, LOGIN)).status, 403, origin);
    }
  });
});
