import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { createAccount, PASSWORD } from '../testing/accounts.js';
import { startTestServer, testConfig, useTestServer } from '../testing/app.js';
import { Client } from '../testing/http.js';

const SETUP = { name: 'Ada Admin', email: 'ada@example.com', username: 'ada', password: PASSWORD };

describe('first account: POST /api/setup', () => {
  const t = useTestServer();

  it('20 concurrent requests from 20 addresses create exactly one ADMIN; the others get 409', async () => {
    assert.deepEqual((await new Client(t.server.url).get('/api/auth/options')).body, {
      setupNeeded: true,
      mailEnabled: false,
    });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        new Client(t.server.url, { 'x-forwarded-for': `198.51.100.${i + 1}` }).post('/api/setup', {
          ...SETUP,
          email: `admin${i}@example.com`,
          username: `admin${i}`,
        }),
      ),
    );
    const created = replies.filter((r) => r.status === 201);
    assert.equal(created.length, 1);
    assert.equal(created[0]?.body.role, 'ADMIN');
    assert.deepEqual(
      replies.filter((r) => r.status === 409).map((r) => r.body.error),
      Array(19).fill('Already set up'),
    );
    const users = await t.db.knex('users').select('role');
    assert.deepEqual(users, [{ role: 'ADMIN' }]);
    assert.equal((await new Client(t.server.url).get('/api/auth/options')).body.setupNeeded, false);
  });

  it('limits attempts to 10 per 10 minutes per client address (last X-Forwarded-For entry), with Retry-After', async () => {
    const from = (xff: string) => new Client(t.server.url, { 'x-forwarded-for': xff });
    for (let i = 0; i < 10; i++) {
      assert.equal((await from(`10.0.0.1, 203.0.113.50`).post('/api/setup', SETUP)).status, 409);
    }
    const limited = await from('192.0.2.99, 203.0.113.50').post('/api/setup', SETUP);
    assert.equal(limited.status, 429, 'the spoofable first entry does not reset the budget');
    assert.ok(Number(limited.headers.get('retry-after')) > 500);
    assert.equal((await from('203.0.113.51').post('/api/setup', SETUP)).status, 409, 'another address is not limited');
    for (const garbage of ['<script>', 'not, an, ip', '::::', '1.2.3.4.5']) {
      const reply = await from(garbage).post('/api/setup', SETUP);
      assert.ok(reply.status < 500, `${garbage} → ${reply.status}`);
    }
  });
});

describe('setup validation', () => {
  const t = useTestServer();

  it('accepts a form post, and refuses bad input naming the field, storing nothing', async () => {
    const client = new Client(t.server.url);
    const tooLong = await client.post('/api/setup', { ...SETUP, password: 'é'.repeat(37) });
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body.details.field, 'password');
    assert.match(tooLong.body.error, /72 bytes/);
    const badEmail = await client.post('/api/setup', { ...SETUP, email: 'nope' });
    assert.equal(badEmail.status, 400);
    assert.equal(badEmail.body.details.field, 'email');
    const sameAsEmail = await client.post('/api/setup', { ...SETUP, password: 'ADA@example.com' });
    assert.equal(sameAsEmail.status, 400);
    assert.equal((await t.db.knex('users').count({ n: '*' }))[0]?.n, '0');

    const form = new URLSearchParams({
      name: 'Form Admin',
      email: 'form@example.com',
      username: '',
      password: PASSWORD,
    });
    const created = await client.post('/api/setup', form.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.email, 'form@example.com');
  });

  it('refuses a foreign Origin', async () => {
    const reply = await new Client(t.server.url, { origin: 'https://evil.example' }).post('/api/setup', SETUP);
    assert.equal(reply.status, 403);
  });
});

describe('sign-in', () => {
  const t = useTestServer();

  it('signs in by e-mail or username in any case, and /me answers with the account', async () => {
    const account = await createAccount(t.db.knex, { email: 'Grace@Example.com', username: 'Grace', role: 'VIEWER' });
    for (const identifier of ['grace@example.COM', 'GRACE']) {
      const client = new Client(t.server.url);
      const reply = await client.signIn(identifier, account.password);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal(reply.body.user.id, account.id);
      assert.ok(client.cookie('argus.sid'), 'session cookie set');
      assert.match(reply.headers.get('set-cookie') ?? '', /httponly/i);
      const me = await client.get('/api/auth/me');
      assert.equal(me.body.user.email, 'Grace@Example.com');
      assert.equal(me.body.user.role, 'VIEWER');
    }
  });

  it('gives the same answer for an unknown account, a wrong password and a disabled account', async () => {
    const account = await createAccount(t.db.knex);
    const disabled = await createAccount(t.db.knex, { disabled: true });
    const answers = await Promise.all([
      new Client(t.server.url).signIn('nobody@example.com', PASSWORD),
      new Client(t.server.url).signIn(account.email, 'wrong password!!'),
      new Client(t.server.url).signIn(disabled.email, PASSWORD),
    ]);
    for (const answer of answers) {
      assert.equal(answer.status, 401);
      assert.deepEqual(answer.body, { error: 'Invalid sign-in', code: 'invalid_sign_in' });
    }
  });

  it('limits failures per (account, address) without locking the account for other addresses', async () => {
    const account = await createAccount(t.db.knex);
    const attacker = () => new Client(t.server.url, { 'x-forwarded-for': '203.0.113.7' });
    for (let i = 0; i < 10; i++) assert.equal((await attacker().signIn(account.email, 'wrong password!!')).status, 401);
    const limited = await attacker().signIn(account.email, account.password);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    const owner = await new Client(t.server.url, { 'x-forwarded-for': '198.51.100.20' }).signIn(
      account.email,
      account.password,
    );
    assert.equal(owner.status, 200, 'the owner signs in from elsewhere');
  });

  it('signs out: the session cookie opens nothing afterwards', async () => {
    const account = await createAccount(t.db.knex);
    const client = new Client(t.server.url);
    await client.signIn(account.email, account.password);
    const cookie = client.cookie('argus.sid');
    assert.equal((await client.post('/api/auth/logout')).status, 204);
    const replay = new Client(t.server.url);
    const reply = await replay.get('/api/auth/me', { cookie: `argus.sid=${cookie}` });
    assert.equal(reply.status, 401);
    assert.equal((await client.get('/api/auth/me')).status, 401);
  });

  it('a changed AUTH_SECRET signs everybody out', async () => {
    const account = await createAccount(t.db.knex);
    const client = new Client(t.server.url);
    await client.signIn(account.email, account.password);
    const other = await startTestServer(
      testConfig(t.db.url, { AUTH_SECRET: 'another-auth-secret-0123456789abcdefghij' }),
    );
    try {
      const moved = new Client(other.url);
      const cookies = `argus.sid=${client.cookie('argus.sid')}; argus.sid.sig=${client.cookie('argus.sid.sig')}`;
      assert.equal((await moved.get('/api/auth/me', { cookie: cookies })).status, 401);
    } finally {
      await other.stop();
    }
  });
});

describe('cookie writes: CSRF and Origin', () => {
  const t = useTestServer();
  let client: Client;
  beforeEach(async () => {
    const account = await createAccount(t.db.knex);
    client = new Client(t.server.url);
    await client.signIn(account.email, account.password);
  });

  it('refuses a cookie write without the CSRF header, or with a wrong one, and stores nothing', async () => {
    for (const token of ['', 'forged-token']) {
      const reply = await client.patch('/api/account', { name: 'Changed' }, { 'x-csrf-token': token });
      assert.equal(reply.status, 403);
      assert.match(reply.body.error, /CSRF/);
      assert.equal(reply.body.code, 'csrf_failed');
    }
    assert.notEqual((await client.get('/api/auth/me')).body.user.name, 'Changed');
    const ok = await client.patch('/api/account', { name: 'Changed' });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.user.name, 'Changed');
  });

  it('hands out the session CSRF token at GET /api/auth/csrf', async () => {
    const { body } = await client.get('/api/auth/csrf');
    assert.equal(body.csrfToken, client.csrfToken);
  });

  it('refuses a cookie write from a foreign Origin even with the token', async () => {
    const reply = await client.patch('/api/account', { name: 'X' }, { origin: 'https://evil.example' });
    assert.equal(reply.status, 403);
    assert.match(reply.body.error, /Cross-origin/);
  });

  it('refuses a cookie write that is neither JSON nor a form', async () => {
    const reply = await client.request('PATCH', '/api/account', 'name=X', { 'content-type': 'text/plain' });
    assert.equal(reply.status, 403);
  });
});
