import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, createCustomer, PASSWORD } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client } from '../testing/http.js';

describe('users and the last administrator', () => {
  let db: TestDatabase;
  let server: TestServer;
  let admin: Client;
  let adminId: number;
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url));
    const account = await createAccount(db.knex, { role: 'ADMIN' });
    adminId = account.id;
    admin = new Client(server.url);
    await admin.signIn(account.email, account.password);
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('the last active ADMIN cannot be deleted, disabled or demoted (409), so setup never reopens', async () => {
    for (const reply of [
      await admin.delete(`/api/users/${adminId}`),
      await admin.patch(`/api/users/${adminId}`, { disabled: true }),
      await admin.patch(`/api/users/${adminId}`, { role: 'OPERATOR' }),
    ]) {
      assert.equal(reply.status, 409);
      assert.equal(reply.body.error, 'The last active administrator cannot be deleted, disabled or demoted');
    }
    const row = await db.knex('users').where({ id: adminId }).first();
    assert.equal(row.role, 'ADMIN');
    assert.equal(row.disabled, false);
  });

  it('creates, lists, edits (role, grants) and deletes users; e-mail clashes are 409', async () => {
    const customer = await createCustomer(db.knex);
    const created = await admin.post('/api/users', {
      email: 'Op@Example.com',
      name: 'Op',
      role: 'OPERATOR',
      password: PASSWORD,
      customerIds: [customer],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.user.id;
    assert.deepEqual(created.body.user.customerIds, [customer]);
    assert.equal(created.body.user.email, 'op@example.com');
    assert.equal(created.body.user.passwordHash, undefined);

    assert.equal(
      (await admin.post('/api/users', { email: 'op@example.com', name: 'X', role: 'VIEWER', password: PASSWORD }))
        .status,
      409,
    );
    const missingCustomer = await admin.post('/api/users', {
      email: 'v@example.com',
      name: 'V',
      role: 'VIEWER',
      password: PASSWORD,
      customerIds: [999999],
    });
    assert.equal(missingCustomer.status, 400);
    assert.equal(missingCustomer.body.details.field, 'customerIds');

    const listed = await admin.get('/api/users');
    assert.ok(listed.body.some((u: { id: number }) => u.id === id));
    assert.ok(listed.body.every((u: Record<string, unknown>) => !('passwordHash' in u)));

    const edited = await admin.patch(`/api/users/${id}`, { role: 'VIEWER', customerIds: [] });
    assert.equal(edited.body.user.role, 'VIEWER');
    assert.deepEqual(edited.body.user.customerIds, []);

    assert.equal((await admin.delete(`/api/users/${id}`)).status, 204);
    assert.equal(
      (await admin.get('/api/users')).body.some((u: { id: number }) => u.id === id),
      false,
    );
    assert.equal((await admin.delete(`/api/users/${id}`)).status, 404);
  });

  it('a second admin can be demoted; then the first is the last again', async () => {
    const second = await createAccount(db.knex, { role: 'ADMIN' });
    assert.equal((await admin.patch(`/api/users/${second.id}`, { role: 'VIEWER' })).status, 200);
    assert.equal((await admin.patch(`/api/users/${adminId}`, { role: 'VIEWER' })).status, 409);
  });

  it("a withdrawn grant applies to the very next request of the operator's token", async () => {
    const customer = await createCustomer(db.knex);
    const operator = await createAccount(db.knex, { role: 'OPERATOR', customerIds: [customer] });
    const browser = new Client(server.url);
    await browser.signIn(operator.email, operator.password);
    const token = (await browser.post('/api/tokens', { name: 'ops script' })).body.token;
    const script = new Client(server.url, { authorization: `Bearer ${token}` });
    assert.deepEqual((await script.get('/api/auth/me')).body.user.customerIds, [customer]);
    await admin.patch(`/api/users/${operator.id}`, { customerIds: [] });
    assert.deepEqual((await script.get('/api/auth/me')).body.user.customerIds, []);
  });

  it('a changed role or a disabled account applies on the next request', async () => {
    const operator = await createAccount(db.knex, { role: 'OPERATOR' });
    const browser = new Client(server.url);
    await browser.signIn(operator.email, operator.password);
    assert.equal((await browser.get('/api/auth/me')).body.user.role, 'OPERATOR');
    await admin.patch(`/api/users/${operator.id}`, { role: 'VIEWER' });
    assert.equal((await browser.get('/api/auth/me')).body.user.role, 'VIEWER');
    await admin.patch(`/api/users/${operator.id}`, { disabled: true });
    assert.equal((await browser.get('/api/auth/me')).status, 401);
    assert.equal((await db.knex('sessions').where({ user_id: operator.id })).length, 0, 'sessions ended');
  });
});

describe('own account', () => {
  let db: TestDatabase;
  let server: TestServer;
  before(async () => {
    db = await createTestDatabase();
    server = await startTestServer(testConfig(db.url));
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  it('changes its password with the current one; other sessions end, this one stays', async () => {
    const account = await createAccount(db.knex);
    const here = new Client(server.url);
    const elsewhere = new Client(server.url);
    await here.signIn(account.email, account.password);
    await elsewhere.signIn(account.email, account.password);
    const wrong = await here.post('/api/account/password', {
      currentPassword: 'not it at all',
      newPassword: 'a brand new password',
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.details.field, 'currentPassword');
    const tooLong = await here.post('/api/account/password', {
      currentPassword: PASSWORD,
      newPassword: 'x'.repeat(73),
    });
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body.details.field, 'password');
    const ok = await here.post('/api/account/password', {
      currentPassword: PASSWORD,
      newPassword: 'a brand new password',
    });
    assert.equal(ok.status, 204);
    assert.equal((await here.get('/api/auth/me')).status, 200);
    assert.equal((await elsewhere.get('/api/auth/me')).status, 401);
    assert.equal((await new Client(server.url).signIn(account.email, 'a brand new password')).status, 200);
  });

  it('edits its profile but not its role', async () => {
    const account = await createAccount(db.knex, { role: 'VIEWER' });
    const browser = new Client(server.url);
    await browser.signIn(account.email, account.password);
    const edited = await browser.patch('/api/account', { name: 'New Name', notifyMinSeverity: 'CRITICAL' });
    assert.equal(edited.body.user.name, 'New Name');
    assert.equal(edited.body.user.notifyMinSeverity, 'CRITICAL');
    assert.equal((await browser.patch('/api/account', { role: 'ADMIN' })).status, 400);
    assert.equal((await db.knex('users').where({ id: account.id }).first()).role, 'VIEWER');
  });

  it('switches its alert e-mails off with the level NONE, and refuses an unknown level', async () => {
    const account = await createAccount(db.knex, { role: 'VIEWER' });
    const browser = new Client(server.url);
    await browser.signIn(account.email, account.password);
    const off = await browser.patch('/api/account', { notifyMinSeverity: 'NONE' });
    assert.equal(off.status, 200);
    assert.equal(off.body.user.notifyMinSeverity, 'NONE');
    const bad = await browser.patch('/api/account', { notifyMinSeverity: 'LOUD' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /notifyMinSeverity/);
    assert.equal((await db.knex('users').where({ id: account.id }).first()).notify_min_severity, 'NONE');
  });
});
