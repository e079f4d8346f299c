/**
 * Single sign-on through a real OpenID provider (oidc-provider on loopback): the whole browser round
 * trip — Argus → the provider's sign-in and consent pages → the callback → the same session cookie a
 * local sign-in gets → an authenticated API call — and the ways it must refuse.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../testing/accounts.js';
import { startTestServer, testConfig, type TestServer } from '../testing/app.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { Client } from '../testing/http.js';
import { LiveClient } from '../testing/live-client.js';
import { freePort } from '../testing/net.js';
import { RedirectBrowser } from '../testing/redirect-browser.js';
import { adminClient, customer, refusal, signInThroughProvider, toCallback, useSsoServer } from '../testing/sso.js';

describe('single sign-on through a real OpenID provider', () => {
  const t = useSsoServer();
  let admin: Client;
  let acme: number;
  let globex: number;
  before(async () => {
    admin = await adminClient(t);
    acme = await customer(t, 'Acme');
    globex = await customer(t, 'Globex');
    const saved = await admin.put('/api/settings/sso/group-mappings', {
      mappings: [
        { group: 'argus-admins', role: 'ADMIN' },
        { group: 'acme-ops', role: 'OPERATOR', customerIds: [acme] },
        { group: 'globex-viewers', role: 'VIEWER', customerIds: [globex] },
      ],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
  });

  it('shows the button, and the settings without the client secret', async () => {
    assert.deepEqual((await new Client(t.url).get('/api/auth/sso')).body, { enabled: true, name: 'Example IdP' });
    const settings = await admin.get('/api/settings/sso');
    assert.equal(settings.status, 200);
    assert.equal(settings.body.issuer, t.op.issuer);
    assert.equal(settings.body.callbackUrl, `${t.url}/api/auth/sso/callback`);
    assert.equal(settings.body.mappings.length, 3);
    assert.ok(!JSON.stringify(settings.body).includes(t.op.clientSecret), 'the client secret never leaves');
  });

  it('signs in through the provider: the same cookie session, CSRF and sign-out as a local sign-in', async () => {
    t.op.accounts.set('alice', {
      email: 'alice@example.com',
      email_verified: true,
      name: 'Alice',
      groups: ['argus-admins'],
    });
    const { browser, landed } = await signInThroughProvider(t, 'alice', '/systems?customer=1#top');
    assert.equal(landed.status, 302);
    assert.equal(landed.location, `${t.url}/systems?customer=1#top`);
    assert.ok(browser.cookie(t.url, 'argus.sid'), 'the session cookie');
    assert.equal(browser.cookie(t.url, 'argus.sso'), undefined, 'the state cookie is gone');

    const me = await browser.fetch(`${t.url}/api/auth/me`);
    assert.equal(me.status, 200);
    const user = JSON.parse(me.text).user;
    assert.equal(user.email, 'alice@example.com');
    assert.equal(user.role, 'ADMIN');
    const row = await t.db.knex('users').where({ id: user.id }).first();
    assert.equal(row.oidc_issuer, t.op.issuer);
    assert.equal(row.oidc_subject, 'alice');
    assert.ok(row.last_sign_in_at, 'last sign-in kept');

    // a write needs the session's CSRF token, as every cookie session does
    const csrf = JSON.parse((await browser.fetch(`${t.url}/api/auth/csrf`)).text).csrfToken;
    const refused = await browser.fetch(`${t.url}/api/auth/logout`, { method: 'POST', headers: { origin: t.url } });
    assert.equal(refused.status, 403);
    const out = await browser.fetch(`${t.url}/api/auth/sso/logout`, {
      method: 'POST',
      headers: { origin: t.url, 'x-csrf-token': csrf },
    });
    assert.equal(out.status, 200);
    assert.equal((await browser.fetch(`${t.url}/api/auth/me`)).status, 401);
    // RP-initiated logout: the provider's page ends its session too, then sends the browser back
    const redirect = new URL(JSON.parse(out.text).redirect);
    assert.equal(redirect.origin, t.op.issuer);
    assert.equal(redirect.searchParams.get('post_logout_redirect_uri'), `${t.url}/login`);
    const confirm = await browser.fetch(redirect.toString());
    const action = /<form[^>]*action="([^"]+)"/.exec(confirm.text)?.[1] as string;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.text)?.[1] as string;
    const ended = await browser.fetch(new URL(action, t.op.issuer).toString(), {
      method: 'POST',
      form: { xsrf, logout: 'yes' },
    });
    let back = ended.location as string;
    while (back.startsWith(t.op.issuer)) back = (await browser.fetch(back)).location as string;
    assert.equal(back, `${t.url}/login`);
    // the provider asks for the password again: its session is gone
    const again = await browser.fetch(`${t.url}/api/auth/sso/start`);
    const atProvider = await browser.fetch(again.location as string);
    const page = await browser.fetch(atProvider.location as string);
    assert.match(page.text, /name="prompt" value="login"/);

    const audit = await t.db.knex('audit_log').where({ action: 'auth.sign_in', actor_id: user.id }).first();
    assert.equal(audit.after.method, 'sso');
    assert.equal(audit.after.account, 'created');
  });

  it('maps groups to the highest role and the union of grants, again at every sign-in', async () => {
    t.op.accounts.set('olga', {
      email: 'olga@example.com',
      email_verified: true,
      groups: ['acme-ops', 'globex-viewers', 'other'],
    });
    const first = await signInThroughProvider(t, 'olga');
    const user = JSON.parse((await first.browser.fetch(`${t.url}/api/auth/me`)).text).user;
    assert.equal(user.role, 'OPERATOR');
    assert.deepEqual(user.customerIds, [acme, globex]);

    // removed from a group at the provider: fewer rights from the next sign-in on
    t.op.accounts.set('olga', { email: 'olga@example.com', email_verified: true, groups: ['globex-viewers'] });
    const second = await signInThroughProvider(t, 'olga');
    const again = JSON.parse((await second.browser.fetch(`${t.url}/api/auth/me`)).text).user;
    assert.equal(again.id, user.id, 'the same account, found by issuer and subject');
    assert.equal(again.role, 'VIEWER');
    assert.deepEqual(again.customerIds, [globex]);
  });

  it('takes the rights of a group the provider removed someone from at their next sign-in, closing their open socket', async () => {
    t.op.accounts.set('rita', {
      email: 'rita@example.com',
      email_verified: true,
      groups: ['acme-ops', 'globex-viewers'],
    });
    const first = await signInThroughProvider(t, 'rita');
    const live = await LiveClient.open(t.url, {
      origin: t.url,
      headers: { cookie: first.browser.cookieHeader(t.url) },
    });
    const before = JSON.parse((await first.browser.fetch(`${t.url}/api/auth/me`)).text).user;
    assert.deepEqual([before.role, before.customerIds], ['OPERATOR', [acme, globex]]);

    // removed from acme-ops at the provider: the next sign-in (any browser) rewrites the rights
    t.op.accounts.set('rita', { email: 'rita@example.com', email_verified: true, groups: ['globex-viewers'] });
    await signInThroughProvider(t, 'rita');
    assert.equal((await live.closed).code, 4000, 'the open socket re-checks and closes');
    const now = JSON.parse((await first.browser.fetch(`${t.url}/api/auth/me`)).text).user;
    assert.deepEqual([now.role, now.customerIds], ['VIEWER', [globex]], 'the older session too, at its next request');
    assert.equal((await first.browser.fetch(`${t.url}/api/customers/${acme}`)).status, 404);
  });

  it('refuses a user in no mapped group, naming the groups, and opens no session', async () => {
    t.op.accounts.set('mallory', { email: 'mallory@example.com', email_verified: true, groups: ['marketing'] });
    const { browser, landed } = await signInThroughProvider(t, 'mallory');
    const message = refusal(landed.location);
    assert.match(message, /"argus-admins"/);
    assert.match(message, /"acme-ops"/);
    assert.equal(browser.cookie(t.url, 'argus.sid'), undefined);
    assert.equal(await t.db.knex('users').where({ email: 'mallory@example.com' }).first(), undefined);
    const audit = await t.db.knex('audit_log').where({ action: 'auth.sso_refused' }).orderBy('id', 'desc').first();
    assert.equal(audit.after.reason, 'sso_no_group');
  });

  it('does not link an existing local account by an e-mail the provider has not verified', async () => {
    const local = await createAccount(t.db.knex, { role: 'ADMIN', email: 'boss@example.com' });
    t.op.accounts.set('impostor', { email: 'boss@example.com', email_verified: false, groups: ['argus-admins'] });
    const { landed } = await signInThroughProvider(t, 'impostor');
    assert.match(refusal(landed.location), /not linked/);
    const row = await t.db.knex('users').where({ id: local.id }).first();
    assert.equal(row.oidc_subject, null);
    // linking is off here (OIDC_LINK_VERIFIED_EMAIL unset): a verified address is not enough either
    t.op.accounts.set('impostor', { email: 'boss@example.com', email_verified: true, groups: ['argus-admins'] });
    assert.match(refusal((await signInThroughProvider(t, 'impostor')).landed.location), /not linked/);
  });

  it('refuses a state that does not match the browser, and one used twice', async () => {
    t.op.accounts.set('sam', { email: 'sam@example.com', email_verified: true, groups: ['globex-viewers'] });
    const browser = new RedirectBrowser();
    const callback = await toCallback(t, browser, 'sam');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value');
    assert.match(refusal((await browser.fetch(forged.toString())).location), /not started in this browser/);

    // the same callback from a browser that did not start the sign-in (login CSRF)
    const other = new RedirectBrowser();
    const stranger = await toCallback(t, other, 'sam');
    assert.match(refusal((await new RedirectBrowser().fetch(stranger)).location), /not started in this browser/);

    // the genuine callback once, then replayed with the same state cookie
    const stateCookie = `argus.sso=${other.cookie(t.url, 'argus.sso')}; argus.sso.sig=${other.cookie(t.url, 'argus.sso.sig')}`;
    const first = await other.fetch(stranger);
    assert.equal(first.status, 302);
    assert.equal(new URL(first.location as string).pathname, '/systems');
    const replay = await new RedirectBrowser().fetch(stranger, { headers: { cookie: stateCookie } });
    assert.match(refusal(replay.location), /expired or was already used/);
  });

  it('refuses a return path that leaves the site (no open redirect)', async () => {
    const client = new Client(t.url);
    for (const returnTo of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'evil',
      '/api/auth/me',
      '/%0d%0aLocation:x',
    ]) {
      const reply = await client.get(`/api/auth/sso/start?returnTo=${encodeURIComponent(returnTo)}`);
      if (reply.status === 302) {
        // a path made of encoded characters stays a path on this site
        assert.ok(new URL(reply.headers.get('location') as string).origin === t.op.issuer, returnTo);
        continue;
      }
      assert.equal(reply.status, 400, `${returnTo} → ${reply.status}`);
      assert.equal(reply.body.details.field, 'returnTo');
    }
  });

  it('lets only an administrator change the mapping, refusing unknown customers and twice-listed groups', async () => {
    const bad = await admin.put('/api/settings/sso/group-mappings', {
      mappings: [{ group: 'x', role: 'VIEWER', customerIds: [999_999] }],
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /no customer 999999/);
    const twice = await admin.put('/api/settings/sso/group-mappings', {
      mappings: [
        { group: 'x', role: 'VIEWER' },
        { group: 'x', role: 'ADMIN' },
      ],
    });
    assert.equal(twice.status, 400);
    assert.match(twice.body.error, /"x" is listed twice/);
    const operator = await createAccount(t.db.knex, { role: 'OPERATOR' });
    const client = new Client(t.url);
    await client.signIn(operator.email, operator.password);
    assert.equal((await client.put('/api/settings/sso/group-mappings', { mappings: [] })).status, 403);
    assert.equal((await admin.get('/api/settings/sso')).body.mappings.length, 3, 'nothing changed');
  });
  it('applies a changed mapping to signed-in accounts at their next request, and signs out one left without a group', async () => {
    t.op.accounts.set('gus', { email: 'gus@example.com', email_verified: true, groups: ['globex-viewers'] });
    const { browser } = await signInThroughProvider(t, 'gus');
    const me = async () => {
      const reply = await browser.fetch(`${t.url}/api/auth/me`);
      return reply.status === 200 ? JSON.parse(reply.text).user : reply.status;
    };
    const socket = () => LiveClient.open(t.url, { origin: t.url, headers: { cookie: browser.cookieHeader(t.url) } });
    assert.equal((await me()).role, 'VIEWER');
    const viewerSocket = await socket();

    const current = (await admin.get('/api/settings/sso')).body.mappings;
    const promoted = current.map((m: { group: string }) =>
      m.group === 'globex-viewers' ? { ...m, role: 'OPERATOR', customerIds: [acme, globex] } : m,
    );
    assert.equal((await admin.put('/api/settings/sso/group-mappings', { mappings: promoted })).status, 200);
    const after = await me();
    assert.equal(after.role, 'OPERATOR');
    assert.deepEqual(after.customerIds, [acme, globex]);
    assert.equal((await viewerSocket.closed).code, 4000, 'rights changed: the console reconnects with the new ones');
    const operatorSocket = await socket();

    const without = current.filter((m: { group: string }) => m.group !== 'globex-viewers');
    assert.equal((await admin.put('/api/settings/sso/group-mappings', { mappings: without })).status, 200);
    assert.equal(await me(), 401, 'no mapped group left: signed out');
    assert.equal((await operatorSocket.closed).code, 4401, 'and the live socket closed');
    const audit = await t.db.knex('audit_log').where({ action: 'sso.mappings.update' }).orderBy('id', 'desc').first();
    assert.equal(audit.after.mappings.length, 2);
    assert.equal((await admin.put('/api/settings/sso/group-mappings', { mappings: current })).status, 200);
  });
});

describe('single sign-on: linking by verified e-mail, when an administrator allows it', () => {
  const t = useSsoServer({ OIDC_LINK_VERIFIED_EMAIL: 'true', OIDC_CREATE_USERS: 'false' });

  it('links a verified address to the local account, refuses an unverified one and creates nobody', async () => {
    const admin = await adminClient(t);
    await admin.put('/api/settings/sso/group-mappings', { mappings: [{ group: 'staff', role: 'OPERATOR' }] });
    const local = await createAccount(t.db.knex, { role: 'VIEWER', email: 'vera@example.com' });

    t.op.accounts.set('vera-unverified', { email: 'vera@example.com', email_verified: false, groups: ['staff'] });
    assert.match(refusal((await signInThroughProvider(t, 'vera-unverified')).landed.location), /not linked/);

    t.op.accounts.set('vera', { email: 'vera@example.com', email_verified: true, groups: ['staff'] });
    const { browser, landed } = await signInThroughProvider(t, 'vera');
    assert.equal(landed.status, 302);
    const me = JSON.parse((await browser.fetch(`${t.url}/api/auth/me`)).text).user;
    assert.equal(me.id, local.id);
    assert.equal(me.role, 'OPERATOR', 'the mapping decides the role');

    t.op.accounts.set('newcomer', { email: 'new@example.com', email_verified: true, groups: ['staff'] });
    assert.match(refusal((await signInThroughProvider(t, 'newcomer')).landed.location), /no Argus account/);
  });
});

describe('single sign-on when not configured', () => {
  const t = {} as { db: TestDatabase; server: TestServer };
  before(async () => {
    t.db = await createTestDatabase();
    t.server = await startTestServer(testConfig(t.db.url));
  });
  after(async () => {
    await t.server.stop();
    await t.db.drop();
  });

  it('shows no button and refuses to start', async () => {
    const client = new Client(t.server.url);
    assert.deepEqual((await client.get('/api/auth/sso')).body, { enabled: false, name: null });
    const start = await client.get('/api/auth/sso/start');
    assert.equal(start.status, 404);
    assert.equal(start.body.error, 'Single sign-on is not configured');
  });
});

describe('single sign-on while the provider is down', () => {
  const t = {} as { db: TestDatabase; server: TestServer };
  before(async () => {
    t.db = await createTestDatabase();
    const silent = await freePort(); // nothing listens there: the provider is down
    t.server = await startTestServer(
      testConfig(t.db.url, {
        OIDC_ISSUER_URL: `http://127.0.0.1:${silent}`,
        OIDC_CLIENT_ID: 'argus',
        OIDC_CLIENT_SECRET: 'secret-that-must-never-show-0123456789',
      }),
    );
  });
  after(async () => {
    await t.server.stop();
    await t.db.drop();
  });

  it('says so at the start, and local accounts (break-glass) still sign in', async () => {
    const start = await new Client(t.server.url).get('/api/auth/sso/start');
    assert.equal(start.status, 503);
    assert.match(start.body.error, /identity provider cannot be reached.*local account/);
    const admin = await createAccount(t.db.knex, { role: 'ADMIN' });
    const client = new Client(t.server.url);
    assert.equal((await client.signIn(admin.email, admin.password)).status, 200);
    assert.equal((await client.get('/api/auth/me')).body.user.role, 'ADMIN');
    assert.ok(!JSON.stringify(t.server.logs.lines()).includes('secret-that-must-never-show'), 'no secret logged');
  });
});
