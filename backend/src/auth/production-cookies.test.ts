/**
 * Sign-in with NODE_ENV=production, as users deploy it: the app always sees plain HTTP (directly, or
 * behind a TLS proxy), and whether cookies are Secure follows AUTH_URL's scheme. A Secure cookie on
 * what the cookies library took for an unencrypted request once answered every sign-in with 500.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config.js';
import { PASSWORD } from '../testing/accounts.js';
import { useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';

const SETUP = { name: 'Ada Admin', email: 'ada@example.com', username: 'ada', password: PASSWORD };
// production refuses the cheap bcrypt cost the other tests use
const PRODUCTION = { NODE_ENV: 'production', BCRYPT_COST: '10' };

/** The attributes of one Set-Cookie line, lower-cased, by cookie name. */
function setCookies(headers: Headers): Map<string, string[]> {
  return new Map(
    headers.getSetCookie().map((line) => {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      return [pair.split('=')[0]!, attributes.map((a) => a.toLowerCase())];
    }),
  );
}

describe('production over plain HTTP with an http:// AUTH_URL on loopback', () => {
  const t = useTestServer({ ...PRODUCTION, AUTH_URL: 'http://127.0.0.1' });

  it('signs in with 200 and a cookie that is HttpOnly and SameSite=Lax but not Secure', async () => {
    assert.equal(t.server.app.env, 'production');
    const client = new Client(t.server.url);
    assert.equal((await client.post('/api/setup', SETUP)).status, 201);
    const login = await client.signIn('ada', PASSWORD);
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const cookies = setCookies(login.headers);
    assert.ok(cookies.size > 0);
    for (const [name, attributes] of cookies) {
      assert.ok(attributes.includes('httponly'), `${name} is HttpOnly`);
      assert.ok(attributes.includes('samesite=lax'), `${name} is SameSite=Lax`);
      assert.ok(!attributes.includes('secure'), `${name} is not Secure over http`);
    }
    assert.equal((await client.get('/api/auth/me')).body.user.email, 'ada@example.com');
    assert.equal((await client.post('/api/auth/logout')).status, 204);
    assert.equal((await client.get('/api/auth/me')).status, 401);
  });
});

describe('production behind a TLS proxy: an https:// AUTH_URL, plain HTTP to the app', () => {
  const t = useTestServer({ ...PRODUCTION, AUTH_URL: 'https://argus.example.com' });

  it('signs in with 200 and Secure; HttpOnly; SameSite=Lax cookies, also when signing out', async () => {
    // what nginx forwards: the browser's Origin and host
    const browser = { origin: 'https://argus.example.com', 'x-forwarded-host': 'argus.example.com' };
    const client = new Client(t.server.url, browser);
    assert.equal((await client.post('/api/setup', SETUP)).status, 201);
    const login = await client.signIn('ada@example.com', PASSWORD);
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const cookies = setCookies(login.headers);
    assert.ok(cookies.size > 0);
    for (const [name, attributes] of cookies) {
      for (const attribute of ['secure', 'httponly', 'samesite=lax']) {
        assert.ok(attributes.includes(attribute), `${name} has ${attribute}: ${attributes.join('; ')}`);
      }
    }
    assert.equal((await client.get('/api/auth/me')).status, 200);
    const logout = await client.post('/api/auth/logout');
    assert.equal(logout.status, 204);
    for (const [name, attributes] of setCookies(logout.headers)) {
      assert.ok(attributes.includes('secure'), `the cleared ${name} is Secure too`);
    }
  });
});

describe('the start-up warning about a plain-HTTP AUTH_URL', () => {
  // an https PUBLIC_URL: a plain-http one refuses the production start (config.test.ts)
  const BASE = {
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/argus',
    AUTH_SECRET: 'a'.repeat(40),
    PUBLIC_URL: 'https://agents.example.com',
  };
  const warning = /AUTH_URL is http:\/\/ on a host other than loopback/;
  const warnings = (env: Record<string, string>) =>
    loadConfig({ ...BASE, ...env }).warnings.filter((line) => warning.test(line));

  it('is given once in production for http:// on another host, never for loopback, https or development', () => {
    assert.equal(warnings({ NODE_ENV: 'production', AUTH_URL: 'http://argus.example.com' }).length, 1);
    assert.equal(warnings({ NODE_ENV: 'production', AUTH_URL: 'http://10.0.0.5:3000' }).length, 1);
    for (const url of ['http://127.0.0.1:3000', 'http://localhost', 'http://[::1]:3000', 'https://argus.example.com']) {
      assert.deepEqual(warnings({ NODE_ENV: 'production', AUTH_URL: url }), [], url);
    }
    assert.deepEqual(warnings({ NODE_ENV: 'development', AUTH_URL: 'http://argus.example.com' }), []);
  });
});
