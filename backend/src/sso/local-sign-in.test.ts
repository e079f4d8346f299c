/**
 * Password sign-in beside single sign-on, against a real OpenID provider: the setting that refuses
 * it to all but break-glass administrators (the first one from /setup is one), the users list's
 * source and last sign-in, and the guard that keeps an administrator who can sign in.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { Client } from '../testing/http.js';
import { LiveClient } from '../testing/live-client.js';
import { RedirectBrowser } from '../testing/redirect-browser.js';
import { signInThroughProvider, useSsoServer, type Fixture } from '../testing/sso.js';

const FIRST_ADMIN = { name: 'Ada', email: 'ada@example.com', password: 'first admin passphrase 42' };

async function listed(admin: Client, email: string) {
  const users = (await admin.get('/api/users')).body as { email: string }[];
  const found = users.find((user) => user.email === email);
  assert.ok(found, email);
  return found as unknown as { id: number; source: string; breakGlass: boolean; lastSignInAt: string | null };
}

/** A browser session opened through the provider, able to write (its CSRF token). */
async function ssoSession(t: Fixture, login: string) {
  const { browser } = await signInThroughProvider(t, login);
  const csrf = JSON.parse((await browser.fetch(`${t.url}/api/auth/csrf`)).text).csrfToken as string;
  const headers = { origin: t.url, 'x-csrf-token': csrf };
  return {
    put: async (path: string, json: unknown) => {
      const step = await browser.fetch(`${t.url}${path}`, { method: 'PUT', json, headers });
      return { status: step.status, body: JSON.parse(step.text) };
    },
  };
}

describe('password sign-in refused to all but break-glass administrators', () => {
  const t = useSsoServer();
  let admin: Client;
  before(async () => {
    assert.equal((await new Client(t.url).post('/api/setup', FIRST_ADMIN)).status, 201);
    admin = new Client(t.url);
    assert.equal((await admin.signIn(FIRST_ADMIN.email, FIRST_ADMIN.password)).status, 200);
    const saved = await admin.put('/api/settings/sso/group-mappings', {
      mappings: [
        { group: 'argus-admins', role: 'ADMIN' },
        { group: 'staff', role: 'VIEWER' },
      ],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
  });

  it('shows how each account signs in and when it last did; the first administrator is break-glass', async () => {
    const operator = await createAccount(t.db.knex, { role: 'OPERATOR' });
    t.op.accounts.set('sue', { email: 'sue@example.com', email_verified: true, groups: ['staff'] });
    await signInThroughProvider(t, 'sue');

    const first = await listed(admin, FIRST_ADMIN.email);
    assert.equal(first.source, 'local');
    assert.equal(first.breakGlass, true);
    assert.ok(first.lastSignInAt, 'a password sign-in is recorded too');
    const sue = await listed(admin, 'sue@example.com');
    assert.equal(sue.source, 'sso');
    assert.equal(sue.breakGlass, false);
    assert.ok(Date.now() - Date.parse(sue.lastSignInAt as string) < 60_000);
    const never = await listed(admin, operator.email);
    assert.equal(never.source, 'local');
    assert.equal(never.lastSignInAt, null);
  });

  it('refuses password sign-in to everyone else once restricted, and only to someone holding the password', async () => {
    const operator = await createAccount(t.db.knex, { role: 'OPERATOR' });
    const otherAdmin = await createAccount(t.db.knex, { role: 'ADMIN' });
    const before = await new Client(t.url).signIn(operator.email, operator.password);
    assert.equal(before.status, 200, 'allowed while not restricted');

    const restricted = await admin.put('/api/settings/sso/local-sign-in', { restricted: true });
    assert.equal(restricted.status, 200, JSON.stringify(restricted.body));
    assert.equal(restricted.body.localSignInRestricted, true);

    const refused = await new Client(t.url).signIn(operator.email, operator.password);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'local_sign_in_off');
    assert.match(refused.body.error, /single sign-on/);
    // a wrong password learns nothing more than for any account
    const guessed = await new Client(t.url).signIn(operator.email, 'not the password at all');
    assert.equal(guessed.status, 401);
    assert.equal((await new Client(t.url).signIn(otherAdmin.email, otherAdmin.password)).status, 403);
    // the first administrator is break-glass: still in with a password
    assert.equal((await new Client(t.url).signIn(FIRST_ADMIN.email, FIRST_ADMIN.password)).status, 200);
    // people of the provider still sign in through it
    t.op.accounts.set('sue', { email: 'sue@example.com', email_verified: true, groups: ['staff'] });
    assert.equal((await signInThroughProvider(t, 'sue')).landed.status, 302);

    // marked break-glass, the other administrator is in with a password again
    const marked = await admin.patch(`/api/users/${otherAdmin.id}`, { breakGlass: true });
    assert.equal(marked.status, 200, JSON.stringify(marked.body));
    assert.equal((await new Client(t.url).signIn(otherAdmin.email, otherAdmin.password)).status, 200);
    const audit = await t.db.knex('audit_log').where({ action: 'settings.local_sign_in.update' }).first();
    assert.deepEqual(audit.after, { restricted: true, accountsSignedOut: 1 }, 'the operator signed in before');
  });

  it('keeps a break-glass administrator while restricted, and makes only administrators with a password one', async () => {
    const admins = await t.db.knex('users').where({ role: 'ADMIN', break_glass: true }).pluck('id');
    const first = await listed(admin, FIRST_ADMIN.email);
    for (const id of admins.filter((other: number) => other !== first.id)) {
      assert.equal((await admin.patch(`/api/users/${id}`, { breakGlass: false })).status, 200);
    }
    const unmark = await admin.patch(`/api/users/${first.id}`, { breakGlass: false });
    assert.equal(unmark.status, 409);
    assert.match(unmark.body.error, /break-glass/);
    assert.equal((await admin.patch(`/api/users/${first.id}`, { role: 'OPERATOR' })).status, 409);
    assert.equal((await admin.delete(`/api/users/${first.id}`)).status, 409);
    assert.equal((await listed(admin, FIRST_ADMIN.email)).breakGlass, true, 'nothing changed');

    const sue = await listed(admin, 'sue@example.com');
    const viewer = await admin.patch(`/api/users/${sue.id}`, { breakGlass: true });
    assert.equal(viewer.status, 400);
    assert.equal(viewer.body.details.field, 'breakGlass');
    const ssoAdmin = await admin.patch(`/api/users/${sue.id}`, { role: 'ADMIN', breakGlass: true });
    assert.equal(ssoAdmin.status, 400, 'no password of its own');
    assert.match(ssoAdmin.body.error, /no password of its own/);

    const allowed = await admin.put('/api/settings/sso/local-sign-in', { restricted: false });
    assert.equal(allowed.body.localSignInRestricted, false);
    const operator = await createAccount(t.db.knex, { role: 'OPERATOR' });
    assert.equal((await new Client(t.url).signIn(operator.email, operator.password)).status, 200);
  });
});

describe('a mapping never leaves the instance without an administrator who can sign in', () => {
  const t = useSsoServer();

  it('refuses a mapping that demotes the only administrators, who sign in through the provider', async () => {
    await t.db.knex('sso_group_mappings').insert({ group_name: 'argus-admins', role: 'ADMIN' });
    t.op.accounts.set('root', { email: 'root@example.com', email_verified: true, groups: ['argus-admins'] });
    const root = await ssoSession(t, 'root');
    // an administrator without a password of their own counts only through the provider
    await createAccount(t.db.knex, { role: 'OPERATOR' });

    const without = await root.put('/api/settings/sso/group-mappings', { mappings: [{ group: 'ops', role: 'ADMIN' }] });
    assert.equal(without.status, 409);
    assert.match(without.body.error, /no administrator who can sign in/);
    const demoted = await root.put('/api/settings/sso/group-mappings', {
      mappings: [{ group: 'argus-admins', role: 'OPERATOR' }],
    });
    assert.equal(demoted.status, 409);
    const row = await t.db.knex('users').where({ email: 'root@example.com' }).first();
    assert.equal(row.role, 'ADMIN', 'rolled back');
    assert.equal(row.local_password, false, 'created by single sign-on: no password of its own');
    assert.equal((await t.db.knex('sso_group_mappings')).length, 1);

    // with a local administrator beside, the same change is fine
    await createAccount(t.db.knex, { role: 'ADMIN' });
    assert.equal((await root.put('/api/settings/sso/group-mappings', { mappings: [] })).status, 200);
  });

  it('refuses to restrict password sign-in while no administrator with a password is break-glass', async () => {
    const local = await createAccount(t.db.knex, { role: 'ADMIN' });
    const admin = new Client(t.url);
    await admin.signIn(local.email, local.password);
    const refused = await admin.put('/api/settings/sso/local-sign-in', { restricted: true });
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, /break-glass/);
    assert.equal((await admin.get('/api/settings/sso')).body.localSignInRestricted, false);
  });
});

describe('refusing password sign-in ends the password sessions it now refuses', () => {
  const t = useSsoServer();

  it('signs out password sessions of all but break-glass administrators, closing their sockets; provider sessions stay', async () => {
    assert.equal((await new Client(t.url).post('/api/setup', FIRST_ADMIN)).status, 201);
    const admin = new Client(t.url);
    await admin.signIn(FIRST_ADMIN.email, FIRST_ADMIN.password);
    await admin.put('/api/settings/sso/group-mappings', { mappings: [{ group: 'staff', role: 'OPERATOR' }] });
    const operator = await createAccount(t.db.knex, { role: 'OPERATOR' });
    const local = new Client(t.url);
    assert.equal((await local.signIn(operator.email, operator.password)).status, 200);
    const localSocket = await LiveClient.open(t.url, { origin: t.url, headers: { cookie: local.cookieHeader() } });
    t.op.accounts.set('sam', { email: 'sam@example.com', email_verified: true, groups: ['staff'] });
    const sso = (await signInThroughProvider(t, 'sam')).browser;
    const ssoSocket = await LiveClient.open(t.url, { origin: t.url, headers: { cookie: sso.cookieHeader(t.url) } });
    const adminSocket = await LiveClient.open(t.url, { origin: t.url, headers: { cookie: admin.cookieHeader() } });

    assert.equal((await admin.put('/api/settings/sso/local-sign-in', { restricted: true })).status, 200);

    assert.equal((await localSocket.closed).code, 4401, 'the refused password session is over, live too');
    assert.equal((await local.get('/api/auth/me')).status, 401, 'and at its next request');
    assert.equal((await sso.fetch(`${t.url}/api/auth/me`)).status, 200, 'a session through the provider stays');
    assert.equal((await admin.get('/api/auth/me')).status, 200, 'the break-glass administrator stays');
    // the sockets that stay are still open after the re-check has had its time
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(ssoSocket.ws.readyState, ssoSocket.ws.OPEN);
    assert.equal(adminSocket.ws.readyState, adminSocket.ws.OPEN);
    const audit = await t.db.knex('audit_log').where({ action: 'settings.local_sign_in.update' }).first();
    assert.deepEqual(audit.after, { restricted: true, accountsSignedOut: 1 });
    ssoSocket.ws.close();
    adminSocket.ws.close();
  });

  it('lets the break-glass administrator in with a password while the provider is stopped, and no one else', async () => {
    const operator = await createAccount(t.db.knex, { role: 'OPERATOR' });
    await t.op.stop();
    // Argus still knows the provider's addresses, but nobody answers there: no sign-in through it
    const start = await new RedirectBrowser().fetch(`${t.url}/api/auth/sso/start`);
    await assert.rejects(fetch(start.location as string), 'the provider cannot be reached');
    assert.equal((await new Client(t.url).signIn(operator.email, operator.password)).status, 403);
    const breakGlass = new Client(t.url);
    assert.equal((await breakGlass.signIn(FIRST_ADMIN.email, FIRST_ADMIN.password)).status, 200);
    assert.equal((await breakGlass.get('/api/auth/me')).body.user.role, 'ADMIN');
  });
});

describe('the last administrator removed from the administrators group at the provider', () => {
  const t = useSsoServer();

  it('loses the rights (the provider decides), and whoever the provider puts in the group is the way back', async () => {
    await t.db.knex('sso_group_mappings').insert([
      { group_name: 'argus-admins', role: 'ADMIN' },
      { group_name: 'staff', role: 'VIEWER' },
    ]);
    t.op.accounts.set('root', { email: 'root@example.com', email_verified: true, groups: ['argus-admins', 'staff'] });
    const first = (await signInThroughProvider(t, 'root')).browser;
    const me = async (browser: RedirectBrowser) => {
      const reply = await browser.fetch(`${t.url}/api/auth/me`);
      return reply.status === 200 ? JSON.parse(reply.text).user.role : reply.status;
    };
    assert.equal(await me(first), 'ADMIN', 'the only administrator, and no password of its own');

    t.op.accounts.set('root', { email: 'root@example.com', email_verified: true, groups: ['staff'] });
    await signInThroughProvider(t, 'root');
    assert.equal(await me(first), 'VIEWER', 'demoted at the next sign-in, its older session too');
    assert.equal((await t.db.knex('users').where({ role: 'ADMIN' })).length, 0, 'no administrator is left');

    // the mapping still names the group: someone the provider puts there signs in as administrator
    t.op.accounts.set('boss', { email: 'boss@example.com', email_verified: true, groups: ['argus-admins'] });
    assert.equal(await me((await signInThroughProvider(t, 'boss')).browser), 'ADMIN');

    // removed from every mapped group: refused, and signed out of the browsers it still had
    t.op.accounts.set('root', { email: 'root@example.com', email_verified: true, groups: ['contractors'] });
    const refused = await signInThroughProvider(t, 'root');
    assert.match(new URL(refused.landed.location as string).searchParams.get('ssoError') ?? '', /argus-admins/);
    assert.equal(await me(first), 401);
  });
});
