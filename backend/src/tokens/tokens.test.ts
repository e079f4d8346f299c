import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../lib/clock.js';
import { createAccount } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { bearer, Client } from '../testing/http.js';

describe('API tokens', () => {
  let db: TestDatabase;
  let server: TestServer;
  const clock = new FakeClock(new Date());
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url), { clock });
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  async function signedIn(role: 'ADMIN' | 'OPERATOR' | 'VIEWER' = 'OPERATOR') {
    const account = await createAccount(db.knex, { role });
    const client = new Client(server.url);
    await client.signIn(account.email, account.password);
    return { account, client };
  }

  it('creates a token shown once, stores only its hash, answers as its account, and revokes it at once', async () => {
    const { account, client } = await signedIn();
    const created = await client.post('/api/tokens', { name: 'ci script' });
    assert.equal(created.status, 201);
    const token: string = created.body.token;
    assert.match(token, /^argus_[0-9A-Za-z]{43}$/);
    assert.equal(created.body.status, 'active');
    const stored = await db.knex('api_tokens').where({ id: created.body.id }).first();
    assert.notEqual(stored.token_hash, token);
    assert.ok(!JSON.stringify(stored).includes(token.slice(6)));

    const listed = await client.get('/api/tokens');
    assert.equal(listed.body[0].name, 'ci script');
    assert.equal(listed.body[0].token, undefined, 'never shown again');

    const script = new Client(server.url);
    const me = await script.get('/api/auth/me', bearer(token));
    assert.equal(me.status, 200);
    assert.equal(me.body.user.id, account.id);
    assert.ok((await db.knex('api_tokens').where({ id: created.body.id }).first()).last_used_at, 'last used recorded');

    const revoked = await client.delete(`/api/tokens/${created.body.id}`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.status, 'revoked');
    assert.equal((await script.get('/api/auth/me', bearer(token))).status, 401);
    assert.equal((await client.get('/api/tokens')).body[0].status, 'revoked', 'revoked tokens stay listed');
  });

  it('an expired token answers 401 and is listed as expired', async () => {
    const { client } = await signedIn();
    const expiresAt = new Date(clock.now().getTime() + 3600_000).toISOString();
    const { body } = await client.post('/api/tokens', { name: 'short', expiresAt });
    assert.equal((await new Client(server.url).get('/api/auth/me', bearer(body.token))).status, 200);
    clock.advance(2 * 3600_000);
    try {
      assert.equal((await new Client(server.url).get('/api/auth/me', bearer(body.token))).status, 401);
      const listed = await client.get('/api/tokens');
      assert.equal(listed.body.find((t: { id: number }) => t.id === body.id).status, 'expired');
    } finally {
      clock.advance(-2 * 3600_000);
    }
  });

  it('refuses an expiry in the past', async () => {
    const { client } = await signedIn();
    const reply = await client.post('/api/tokens', { name: 'x', expiresAt: '2001-01-01T00:00:00Z' });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.details.field, 'expiresAt');
  });

  it('a bearer token wins over a cookie: the request is answered as the token', async () => {
    const { client: adminBrowser } = await signedIn('ADMIN');
    const { client: viewerBrowser } = await signedIn('VIEWER');
    const viewerToken = (await viewerBrowser.post('/api/tokens', { name: 'v' })).body.token;
    // the admin's browser, carrying a viewer token: answered as the viewer
    const me = await adminBrowser.get('/api/auth/me', bearer(viewerToken));
    assert.equal(me.body.user.role, 'VIEWER');
    // and a bad token is 401 even with a good cookie
    assert.equal((await adminBrowser.get('/api/auth/me', bearer('argus_' + 'x'.repeat(43)))).status, 401);
  });

  it('token endpoints refuse a bearer token (session cookie only)', async () => {
    const { client } = await signedIn();
    const token = (await client.post('/api/tokens', { name: 't' })).body.token;
    const script = new Client(server.url);
    assert.equal((await script.get('/api/tokens', bearer(token))).status, 403);
    assert.equal((await script.post('/api/tokens', { name: 'more' }, bearer(token))).status, 403);
    assert.equal((await script.delete('/api/tokens/1', bearer(token))).status, 403);
  });

  it("a disabled account's tokens answer 401 at once", async () => {
    const { account, client } = await signedIn();
    const token = (await client.post('/api/tokens', { name: 't' })).body.token;
    await db.knex('users').where({ id: account.id }).update({ disabled: true });
    assert.equal((await new Client(server.url).get('/api/auth/me', bearer(token))).status, 401);
  });

  it('rate-limits failed bearer attempts per address (answered 401), and a success clears the count', async () => {
    const { client } = await signedIn();
    const token = (await client.post('/api/tokens', { name: 't' })).body.token;
    const from = (ip: string) => new Client(server.url, { 'x-forwarded-for': ip });
    for (let i = 0; i < 29; i++) await from('203.0.113.80').get('/api/auth/me', bearer(`argus_${'y'.repeat(43)}`));
    assert.equal((await from('203.0.113.80').get('/api/auth/me', bearer(token))).status, 200, 'clears the count');
    for (let i = 0; i < 30; i++) await from('203.0.113.80').get('/api/auth/me', bearer(`argus_${'y'.repeat(43)}`));
    assert.equal(
      (await from('203.0.113.80').get('/api/auth/me', bearer(token))).status,
      401,
      'limited: even a good token',
    );
    assert.equal(
      (await from('203.0.113.81').get('/api/auth/me', bearer(token))).status,
      200,
      'other addresses are not',
    );
  });

  it('refuses malformed token values as not signed in', async () => {
    const script = new Client(server.url);
    for (const value of ['argus_short', 'other_' + 'a'.repeat(43), 'argus_' + 'a'.repeat(42) + '!', '']) {
      assert.equal((await script.get('/api/auth/me', { authorization: `Bearer ${value}` })).status, 401);
    }
  });
});
